
RsServe.serve(fn args -> apply(@@module@@, :@@entry@@, args) end)
