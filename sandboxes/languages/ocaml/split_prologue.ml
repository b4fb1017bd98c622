#load "unix.cma";;
@@codec@@
(* The program's side, before the prompt (so that nothing the program defines changes it): the codec, and the
   dispatcher that answers each call read from fd 0 on a copy of fd 1; fd 1 itself becomes stderr, so that what the
   program prints never goes among the replies. *)
module Rs_split = struct
  let replies = Unix.out_channel_of_descr (Unix.dup Unix.stdout)
  let () = Unix.dup2 Unix.stderr Unix.stdout; set_binary_mode_out replies true; set_binary_mode_in stdin true

  let apply entry arguments = List.fold_left (fun f argument -> (Obj.obj f : Obj.t -> Obj.t) argument) entry arguments

  let serve params ret (entry : Obj.t) =
    let types = Rs_wire.arguments params and result = Rs_wire.parse ret in
    let rec answer () =
      match input_char stdin with
      | 'C' ->
          ignore (Rs_wire.count stdin);
          let arguments = List.map (fun t -> Rs_wire.read t stdin) types in
          let reply = Buffer.create 64 in
          (match apply entry arguments with
           | value -> Buffer.add_char reply 'R'; Rs_wire.put result value reply; Buffer.add_string reply "l0:"
           | exception error -> Rs_wire.reply_raised error reply);
          output_string replies (Buffer.contents reply);
          flush replies;
          answer ()
      | _ | exception End_of_file -> ()
    in
    answer ()
end
