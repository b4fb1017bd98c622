"""OCaml's tests in a process of their own (docs/guards.md, "Two processes"), through a real server and sandboxes.

The tests' side is the prompt up to its function's declaration, the stub that the declaration types and that sends
each call's arguments across and reads the result back by the declared types' text (sandboxes/languages/ocaml/
split_stub.ml), and the tests; the program's side is the codec, the prompt, the completion and the dispatcher.
Problems are in MultiPL-E's own layout (humaneval_to_ml.py: `let name (x : t) : t =`, `let assertions = ...` of
asserts on `=`, its stop tokens): hacks that pass as the plain MultiPL-E program must not pass split, what reaches
for the tests' process fails, and honest programs keep their verdicts over every type the translator writes (int,
float, bool, string, lists, tuples, association lists, options) and the standard library's others (int32, int64,
nativeint, char, bytes, unit, arrays).
"""

from __future__ import annotations

import pytest

from reward_server.pb import reward_pb2
from tests.candidates import function_style, verdict_name
from tests.guard_cases import Hack, Honest, Problem, case_tests, score_cases
from tests.judge_cases import multipl_e_cases

# MultiPL-E's HumanEval_53_add (tests/data/multipl_e_humaneval.jsonl)
[ROW] = [case for case in multipl_e_cases() if case.language == "ml"]
STOPS = ROW.stop_tokens


def problem(declaration: str, *checks: str) -> Problem:
    """A MultiPL-E problem: `declaration` is what follows `let`; each check is a bool of `candidate` the tests
    assert."""
    entry = declaration.split()[0]
    tests = (f"\nlet assertions =\n let candidate = {entry} in\n"
             + "".join(f"  (assert ({check}));\n" for check in checks) + "  ()\n\n")
    return Problem("ocaml", f"(**doc\n*)\nlet {declaration} =\n", tests, STOPS)


ADD = Problem("ocaml", ROW.prompt, ROW.tests, STOPS)
# a same-line `;;` starts a top-level item of the program's own (the stop tokens cut at "\nlet")
WRONG = "  x - y;;"

HACKS = [
    Hack("exits 0 during the call", "  exit 0\n", "RUNTIME_ERROR", ADD),
    Hack("exits 0 before the tests", WRONG + " let () = exit 0\n", "RUNTIME_ERROR", ADD),
    Hack("an at_exit that exits 0", WRONG + " at_exit (fun () -> exit 0)\n", "RUNTIME_ERROR", ADD),
    Hack("an equality of its own", WRONG + " let ( = ) _ _ = true\n", "RUNTIME_ERROR", ADD),
]

# each returns the right answer only if it reached what it must not (the tests' files, process or a child)
PROC = ("  let me = string_of_int (Unix.getpid ()) in\n"
        "  let reached pid = pid <> me && pid.[0] >= '0' && pid.[0] <= '9' && (try REACHES; true with _ -> false) in\n"
        "  if Array.exists reached (Sys.readdir \"/proc\") then x + y else x - y\n")
HELD = [
    Hack("reads the tests' source", '  ignore (open_in "../t/main.ml"); x + y\n', "RUNTIME_ERROR", ADD),
    Hack("opens another process's memory", PROC.replace("REACHES", 'close_in (open_in ("/proc/" ^ pid ^ "/mem"))'),
         "RUNTIME_ERROR", ADD),
    Hack("reads another process's directory", PROC.replace("REACHES", 'ignore (Sys.readdir ("/proc/" ^ pid ^ "/cwd"))'),
         "RUNTIME_ERROR", ADD),
    Hack("forks a child per guess", "  if Unix.fork () = 0 then exit 0 else x + y\n", "RUNTIME_ERROR", ADD),
    Hack("runs a command", '  if Sys.command "true" = 0 then x + y else x - y\n', "RUNTIME_ERROR", ADD),
    Hack("writes garbage where the replies go, then answers right",
         '  for fd = 1 to 20 do (try ignore (Unix.write_substring (Obj.magic fd) "zz" 0 2) with _ -> ()) done;'
         " x + y\n", "RUNTIME_ERROR", ADD),
    Hack("replies on its own, then exits 0",
         '  for fd = 1 to 20 do (try ignore (Unix.write_substring (Obj.magic fd) "Ri1;l0:" 0 7) with _ -> ()) done;'
         " exit 0\n", "RUNTIME_ERROR", ADD),
]

HONEST = [
    Honest("add", "  x + y\n", "  x - y\n", ADD),
    Honest("MultiPL-E's own completions", ROW.right, ROW.wrong, ADD),
    Honest("sample", "  a + b\n", "  a - b\n", Problem("ocaml", "let add (a : int) (b : int) : int =\n",
                                                       "let () = assert (add 2 3 = 5)\n", ())),
    Honest("prints on stdout, the replies' format too", '  print_string "Ri3;l0:"; print_endline "é ✓"; x + y\n',
           '  print_string "Ri3;l0:"; x - y\n', ADD),
    Honest("a list", "  List.sort compare l\n", "  l\n",
           problem("sort_array (l : int list) : int list", "(candidate [3; 1; 2]) = [1; 2; 3]", "(candidate []) = []")),
    Honest("nested lists of Unicode strings", "  l\n", "  List.rev l\n", problem(
        "same (l : string list list) : string list list",
        '(candidate [["héllo ✓ 😀"; "a\\nb\\000c"]; []]) = [["héllo ✓ 😀"; "a\\nb\\000c"]; []]')),
    Honest("floats: NaN, infinity, -0.0, exact bits", "  [x; nan; infinity; -0.0; 1.0 /. 3.0]\n",
           "  [x; nan; infinity; 0.0; 1.0 /. 3.0]\n", problem(
               "floats (x : float) : float list", "let r = candidate 0.1 in List.nth r 0 = 0.1 && "
               "Float.is_nan (List.nth r 1) && List.nth r 2 = infinity && 1.0 /. List.nth r 3 = neg_infinity && "
               "List.nth r 4 = 1.0 /. 3.0")),
    Honest("an option", "  match l with [] -> None | _ -> Some (List.fold_left max min_int l)\n",
           "  match l with [] -> None | _ -> Some (List.fold_left min max_int l)\n",
           problem("largest (l : int list) : int option", "(candidate [1; 5]) = Some 5", "(candidate []) = None")),
    # MultiPL-E's tuples: ` int * string`, its leading space and all
    Honest("a tuple of options and a bool", '  (Some (fst t), None, snd t = "")\n', "  (Some (fst t), None, false)\n",
           problem("parts (t :  int * string) :  int option * int option * bool",
                   '(candidate (7, "")) = (Some 7, None, true)')),
    Honest("an association list, in its order", "  List.map (fun (k, v) -> (k, 2 * v)) m\n", "  m\n", problem(
        "double (m : (string * int) list) : (string * int) list",
        '(candidate [("b", 1); ("a", 2)]) = [("b", 2); ("a", 4)]')),
    Honest("a bool and int's extremes", "  if a then b else - b\n", "  if a then - b else b\n", problem(
        "sign (a : bool) (b : int) : int", "(candidate true max_int) = max_int", "(candidate true min_int) = min_int",
        "(candidate false 5) = (~-5)")),
    Honest("int32, int64, nativeint", "  (b, a, c)\n", "  (Int64.pred b, a, c)\n", problem(
        "widths (a : int32) (b : int64) (c : nativeint) : int64 * int32 * nativeint",
        "(candidate (-2147483648l) 9223372036854775807L (-5n)) = (9223372036854775807L, -2147483648l, -5n)")),
    Honest("a char and bytes", "  (s.[0], Bytes.of_string s)\n", "  (s.[1], Bytes.of_string s)\n", problem(
        "first (s : string) : char * bytes", "(candidate \"\\233\\255\") = ('\\233', Bytes.of_string \"\\233\\255\")")),
    Honest("arrays, of floats too", "  (Array.append f [|1.5|], Array.of_list (List.rev (Array.to_list a)))\n",
           "  (f, a)\n", problem("arrays (a : int array) (f : float array) : float array * int array",
                                 "(candidate [|1; 2|] [|0.5|]) = ([|0.5; 1.5|], [|2; 1|])")),
    Honest("a unit argument", '  "x"\n', '  ""\n', problem("name () : string", '(candidate ()) = "x"')),
    Honest("a call in a call's argument", "  x + 1\n", "  x\n",
           problem("inc (x : int) : int", "(candidate (candidate 1)) = 3")),
    Honest("raises", "  x + y\n", '  failwith "no"\n', ADD),
    Honest("raises Not_found", "  List.find (fun x -> x = 4) l\n", "  List.find (fun x -> x = 5) l\n",
           problem("find (l : int list) : int", "(candidate [4]) = 4")),
    Honest("does not type-check", "  x + y\n", '  x ^ "y"\n', ADD),
]

# no MultiPL-E prompt has a function argument or a type variable: the stub cannot send either
UNSUPPORTED = [function_style(f"unsupported/{name}", "ocaml", p.prompt, completion, p.tests, stop_tokens=STOPS)
               for name, completion, p in (
                   ("function argument", "  f x\n",
                    problem("apply (f : int -> int) (x : int) : int", "(candidate (fun x -> x + 1) 1) = 2")),
                   ("type variable", "  List.length l\n", problem("size (l : 'a list) : int", "(candidate [1]) = 1")))]
# MultiPL-E's translation of a Dict, `(string, int) list`, is no OCaml type: its judge fails every completion too
DICT_PROBLEM = problem("total (m : (string, int) list) : int", "(candidate []) = 0")
DICT = function_style("dict", "ocaml", DICT_PROBLEM.prompt, "  0\n", DICT_PROBLEM.tests, stop_tokens=STOPS)


@pytest.fixture(scope="module")
def results(server_address: str) -> dict[str, reward_pb2.ScoreResult]:
    return score_cases(server_address, "ocaml", HACKS, HELD, HONEST, [*UNSUPPORTED, DICT])


globals().update(case_tests(HACKS, held=HELD, honest=HONEST))


@pytest.mark.parametrize("name", ["function argument", "type variable"])
def test_what_the_wire_cannot_carry_is_not_the_programs_fault(name: str, results) -> None:
    assert verdict_name(results[f"unsupported/{name}"]) == "INFRA_UNSUPPORTED_TEST", results[f"unsupported/{name}"]


def test_a_prompt_that_does_not_type_check_fails_as_multipl_e_s_judge_has_it(results) -> None:
    assert verdict_name(results["dict"]) == "RUNTIME_ERROR", results["dict"]
