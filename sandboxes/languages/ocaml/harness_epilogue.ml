let () = prerr_endline "{marker}"
