
(rs-wire/serve @@entry@@)
