(* The program's side, after the completion: its function answers the calls (OCaml's arguments do not change). *)
let () = Rs_split.serve {rs|@@params@@|rs} {rs|@@ret@@|rs} (Stdlib.Obj.repr @@entry@@)
