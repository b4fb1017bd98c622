(* The wire format (docs/guards.md, "Values across the pipe"), both sides' writer and reader: data only, into the
   standard library's own types. OCaml has no type-directed dispatch, so the codec reads the types the prompt declares
   (its text: `(x : int list) (y : float * string) : bool option`) and writes and reads each value by its type's
   representation; the prompt's own declaration types the function built from them (split_stub.ml), so a value is only
   ever read into the type the tests' side compiled against. *)
module Rs_wire = struct
  open Stdlib     (* the standard library's own names, whatever the prompt before it defined *)

  type ty =
    | Int | Int32 | Int64 | Nativeint | Float | Bool | Char | String | Bytes | Unit
    | List of ty | Array of ty | Option of ty | Tuple of ty list

  exception Unsupported of string         (* what the wire cannot carry: a function, a type of the prompt's own *)
  exception Malformed of string           (* what the other side wrote is not a value of the type *)

  (* --- the declared types, from their text --- *)

  let tokens text =
    let length = String.length text in
    let rec from at found =
      if at >= length then List.rev found
      else match text.[at] with
        | ' ' | '\t' | '\n' | '\r' -> from (at + 1) found
        | '-' when at + 1 < length && text.[at + 1] = '>' -> from (at + 2) ("->" :: found)
        | '(' | ')' | '*' | ',' | ':' as c -> from (at + 1) (String.make 1 c :: found)
        | 'a' .. 'z' | 'A' .. 'Z' | '_' ->
            let stop = ref at in
            while !stop < length && (match text.[!stop] with
                | 'a' .. 'z' | 'A' .. 'Z' | '0' .. '9' | '_' | '\'' | '.' -> true | _ -> false) do incr stop done;
            from !stop (String.sub text at (!stop - at) :: found)
        | '\'' -> raise (Unsupported "a type variable")
        | c -> raise (Unsupported (Printf.sprintf "a type with %C in it" c))
    in
    from 0 []

  let base = function
    | "int" -> Int | "int32" -> Int32 | "int64" -> Int64 | "nativeint" -> Nativeint | "float" -> Float
    | "bool" -> Bool | "char" -> Char | "string" -> String | "bytes" -> Bytes | "unit" -> Unit
    | name -> raise (Unsupported ("the type " ^ name))

  let applied inner = function
    | "list" -> List inner | "array" -> Array inner | "option" -> Option inner
    | name -> raise (Unsupported ("the type constructor " ^ name))

  (* OCaml's precedence: a constructor applies (postfix) before `*` makes a tuple, and `->` is a function *)
  let rec arrow input =
    let t, rest = tuple input in
    match rest with
    | "->" :: _ -> raise (Unsupported "a function")
    | _ -> t, rest

  and tuple input =
    let first, rest = constructed input in
    let rec more items = function
      | "*" :: rest -> let item, rest = constructed rest in more (item :: items) rest
      | rest -> items, rest
    in
    match more [first] rest with
    | [one], rest -> one, rest
    | items, rest -> Tuple (List.rev items), rest

  and constructed input =
    let rec postfix t = function
      | name :: rest when name <> "" && (match name.[0] with 'a' .. 'z' | '_' -> true | _ -> false) ->
          postfix (applied t name) rest
      | rest -> t, rest
    in
    match input with
    | "(" :: rest ->
        (match arrow rest with
         | t, ")" :: rest -> postfix t rest
         | _, "," :: _ -> raise (Unsupported "a type constructor of several types")
         | _ -> raise (Unsupported "a type that does not parse"))
    | name :: rest when name <> "" && (match name.[0] with 'a' .. 'z' | '_' -> true | _ -> false) ->
        postfix (base name) rest
    | _ -> raise (Unsupported "a type that does not parse")

  let parse text =
    match arrow (tokens text) with
    | t, [] -> t
    | _ -> raise (Unsupported ("the type " ^ text))

  (* the declaration's arguments, `(name : type)` each (or `()`), into their types *)
  let arguments text =
    let rec read types = function
      | [] -> List.rev types
      | "(" :: ")" :: rest -> read (Unit :: types) rest
      | "(" :: _ :: ":" :: rest ->
          (match arrow rest with
           | t, ")" :: rest -> read (t :: types) rest
           | _ -> raise (Unsupported ("the arguments " ^ text)))
      | _ -> raise (Unsupported ("the arguments " ^ text))
    in
    read [] (tokens text)

  (* --- writing: a value by its declared type --- *)

  let counted out tag count = Buffer.add_char out tag; Buffer.add_string out (string_of_int count); Buffer.add_char out ':'

  let utf8 out code =
    if code < 0x80 then Buffer.add_char out (Char.chr code)
    else (Buffer.add_char out (Char.chr (0xC0 lor (code lsr 6))); Buffer.add_char out (Char.chr (0x80 lor (code land 0x3F))))

  let rec put t (value : Obj.t) out =
    match t with
    | Int -> Printf.bprintf out "i%d;" (Obj.obj value : int)
    | Int32 -> Printf.bprintf out "i%ld;" (Obj.obj value : int32)
    | Int64 -> Printf.bprintf out "i%Ld;" (Obj.obj value : int64)
    | Nativeint -> Printf.bprintf out "i%nd;" (Obj.obj value : nativeint)
    | Float -> Printf.bprintf out "d%016Lx" (Int64.bits_of_float (Obj.obj value : float))
    | Bool -> Buffer.add_char out (if (Obj.obj value : bool) then 'T' else 'F')
    | Char ->
        let code = Char.code (Obj.obj value : char) in
        counted out 'c' (if code < 0x80 then 1 else 2); utf8 out code
    | String -> let text = (Obj.obj value : string) in counted out 's' (String.length text); Buffer.add_string out text
    | Bytes -> let data = (Obj.obj value : bytes) in counted out 'y' (Bytes.length data); Buffer.add_bytes out data
    | Unit -> Buffer.add_char out 'N'
    | List item -> let items = (Obj.obj value : Obj.t list) in counted out 'l' (List.length items); List.iter (fun v -> put item v out) items
    | Array Float -> put (List Float) (Obj.repr (List.map Obj.repr (Array.to_list (Obj.obj value : float array)))) out
    | Array item -> put (List item) (Obj.repr (Array.to_list (Obj.obj value : Obj.t array))) out
    | Option item -> (match (Obj.obj value : Obj.t option) with None -> Buffer.add_char out 'N' | Some v -> put item v out)
    | Tuple items -> counted out 't' (List.length items); List.iteri (fun at item -> put item (Obj.field value at) out) items

  (* --- reading: a value of the declared type, its tag already read --- *)

  let byte input = try input_char input with End_of_file -> raise (Malformed "the other side ended in a value")

  let until input stop =
    let text = Buffer.create 16 in
    let rec next () = match byte input with
      | c when c = stop -> Buffer.contents text
      | c when Buffer.length text < 64 -> Buffer.add_char text c; next ()
      | _ -> raise (Malformed "a number without its end")
    in
    next ()

  let count input =
    let digits = until input ':' in
    match int_of_string_opt digits with
    | Some n when String.length digits > 0 && String.for_all (function '0' .. '9' -> true | _ -> false) digits -> n
    | _ -> raise (Malformed ("a count that is not one: " ^ digits))

  let bytes input = try really_input_string input (count input) with End_of_file -> raise (Malformed "a short string")

  let integer input of_string =
    let digits = until input ';' in
    let plain = String.length digits > 0 && String.for_all (function '0' .. '9' | '-' -> true | _ -> false) digits in
    match if plain then of_string digits else None with
    | Some n -> n
    | None -> raise (Malformed ("an integer the type cannot hold: " ^ digits))

  let unexpected tag wanted = raise (Malformed (Printf.sprintf "%C where the type wants %s" tag wanted))

  let rec take t tag input : Obj.t =
    match t, tag with
    | Int, 'i' -> Obj.repr (integer input int_of_string_opt)
    | Int32, 'i' -> Obj.repr (integer input Int32.of_string_opt)
    | Int64, 'i' -> Obj.repr (integer input Int64.of_string_opt)
    | Nativeint, 'i' -> Obj.repr (integer input Nativeint.of_string_opt)
    | Float, 'd' ->
        let hex = try really_input_string input 16 with End_of_file -> raise (Malformed "a short float") in
        if not (String.for_all (function '0' .. '9' | 'a' .. 'f' | 'A' .. 'F' -> true | _ -> false) hex)
        then raise (Malformed ("a float's bits that are not hex: " ^ hex));
        Obj.repr (Int64.float_of_bits (Int64.of_string ("0x" ^ hex)))
    | Bool, 'T' -> Obj.repr true
    | Bool, 'F' -> Obj.repr false
    | Char, 'c' ->
        (match bytes input with
         | one when String.length one = 1 && Char.code one.[0] < 0x80 -> Obj.repr one.[0]
         | two when String.length two = 2 && Char.code two.[0] land 0xE0 = 0xC0 && Char.code two.[0] >= 0xC2
                    && Char.code two.[0] <= 0xC3 && Char.code two.[1] land 0xC0 = 0x80 ->
             Obj.repr (Char.chr (((Char.code two.[0] land 0x1F) lsl 6) lor (Char.code two.[1] land 0x3F)))
         | _ -> raise (Malformed "a character that is not one byte's code point"))
    | String, 's' -> Obj.repr (bytes input)
    | Bytes, ('y' | 's') -> Obj.repr (Bytes.of_string (bytes input))
    | Unit, 'N' -> Obj.repr ()
    | List item, 'l' -> Obj.repr (items item input)
    | Array Float, 'l' -> Obj.repr (Array.of_list (List.map (fun v -> (Obj.obj v : float)) (items Float input)))
    | Array item, 'l' -> Obj.repr (Array.of_list (items item input))
    | Option _, 'N' -> Obj.repr None
    | Option item, tag -> Obj.repr (Some (take item tag input))
    | Tuple types, 't' ->
        let size = count input in
        if size <> List.length types then raise (Malformed (Printf.sprintf "a tuple of %d where the type wants %d"
                                                               size (List.length types)));
        let tuple = Obj.new_block 0 size in
        List.iteri (fun at item -> Obj.set_field tuple at (take item (byte input) input)) types;
        tuple
    | _, tag -> unexpected tag "another value"

  and items item input =
    let size = count input in
    List.init size (fun _ -> take item (byte input) input)

  let read t input = take t (byte input) input

  (* past one value of any type *)
  let rec skip input =
    match byte input with
    | 'N' | 'U' | 'T' | 'F' -> ()
    | 'i' -> ignore (until input ';')
    | 'd' -> ignore (try really_input_string input 16 with End_of_file -> raise (Malformed "a short float"))
    | 's' | 'c' | 'y' -> ignore (bytes input)
    | 'l' | 't' | 'e' -> for _ = 1 to count input do skip input done
    | 'm' -> for _ = 1 to 2 * count input do skip input done
    | tag -> unexpected tag "a value"

  (* the built-in exception a reply names, as the tests' side raises it *)
  let raised name message =
    match name with
    | "Failure" -> Failure message
    | "Invalid_argument" -> Invalid_argument message
    | "Sys_error" -> Sys_error message
    | "Not_found" -> Not_found
    | "Division_by_zero" -> Division_by_zero
    | "End_of_file" -> End_of_file
    | "Stack_overflow" -> Stack_overflow
    | "Out_of_memory" -> Out_of_memory
    | "Stdlib.Exit" -> Exit
    | _ -> Failure ("the function raised " ^ name ^ ": " ^ message)

  (* an exception as a reply: its name and message *)
  let reply_raised error out =
    let message = match error with
      | Failure message | Invalid_argument message | Sys_error message -> message
      | _ -> Printexc.to_string error in
    Buffer.add_char out 'X'; put String (Obj.repr (Printexc.exn_slot_name error)) out; put String (Obj.repr message) out

  (* the value typed as `typed` is (the prompt's declaration of the function) *)
  let typed_as (_ : 'a) (value : Obj.t) : 'a = Obj.obj value
end
