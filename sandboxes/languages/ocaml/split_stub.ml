@@codec@@
(* The tests' side, in place of the prompt's function: each call's arguments written on fd 3, the reply read back
   from fd 4 into the declared type. *)
module Rs_split = struct
  open Stdlib
  external descriptor_out : int -> out_channel = "caml_ml_open_descriptor_out"
  external descriptor_in : int -> in_channel = "caml_ml_open_descriptor_in"
  let calls = descriptor_out 3
  let replies = descriptor_in 4
  let () = set_binary_mode_out calls true; set_binary_mode_in replies true; Sys.set_signal Sys.sigpipe Sys.Signal_ignore

  let unsupported what = prerr_endline ("@@unsupported@@" ^ what); exit 1
  let ended () = failwith "the program ended during a call"

  let call types result arguments =
    let call = Buffer.create 64 in
    Rs_wire.counted call 'C' (List.length arguments);
    (try List.iter2 (fun t argument -> Rs_wire.put t argument call) types arguments
     with Rs_wire.Unsupported what -> unsupported what);
    (try output_string calls (Buffer.contents call); flush calls with Sys_error _ -> ended ());
    let text () = (Obj.obj (Rs_wire.read Rs_wire.String replies) : string) in
    match input_char replies with
    | 'R' -> (try let value = Rs_wire.read result replies in Rs_wire.skip replies; value
              with Rs_wire.Malformed why -> failwith ("the program's reply is not a value of the declared type: " ^ why))
    | 'X' -> let name = text () in raise (Rs_wire.raised name (text ()))
    | tag -> failwith (Printf.sprintf "the program's reply is not a value: %C" tag)
    | exception End_of_file -> ended ()

  (* the function, curried over the declared arguments' types; each full application is one call *)
  let stub params ret =
    let types, result = try Rs_wire.arguments params, Rs_wire.parse ret with Rs_wire.Unsupported what -> unsupported what in
    let rec curried pending sent = match pending with
      | [] -> call types result (List.rev sent)
      | _ :: rest -> Obj.repr (fun (argument : Obj.t) -> curried rest (argument :: sent))
    in
    curried types []
end

(* the prompt's declaration gives the stub its type *)
let @@entry@@ @@params@@ : @@ret@@ = Stdlib.Obj.magic ()
let @@entry@@ = Rs_wire.typed_as @@entry@@ (Rs_split.stub {rs|@@params@@|rs} {rs|@@ret@@|rs})
