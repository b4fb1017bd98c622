"""Ada's tests in a process of their own (docs/guards.md, "Two processes"), through a real server and sandboxes.

Problems are in MultiPL-E's own layout (humaneval_to_ada.py: package Placeholder's spec, then its body opening the
function; the tests close both and are a procedure Main of pragma Asserts). The tests' side is the spec (its types),
the stub's body in the body's place (sandboxes/languages/ada/split_stub.adb) and the tests; the program's side is the
prompt, the completion, the `end F; end Placeholder;` the tests begin with, and the dispatcher, a child procedure of
the package and a new Main. Each value crosses as its type's own stream representation: hacks that pass as the plain
program must not pass split, what reaches for the tests' process fails (a forged Boolean byte too), and honest
programs keep their verdicts over records, discriminated records, unconstrained arrays, Unbounded_String,
Wide_Wide_String, Long_Long_Integer, floats to the bit (-0.0) and Ada.Containers.Vectors.
"""

from __future__ import annotations

import pytest

from reward_server.pb import reward_pb2
from tests.guard_cases import Hack, Honest, Problem, case_tests, score_cases
from tests.judge_cases import multipl_e_cases

STOPS = ("\n   end ",)
# MultiPL-E's HumanEval_53_add (tests/data/multipl_e_humaneval.jsonl)
[ROW] = [case for case in multipl_e_cases() if case.language == "adb"]
ADD = Problem("ada", ROW.prompt, ROW.tests, ROW.stop_tokens)


def problem(spec: str, signature: str, declarations: str, *checks: str, context: str = "") -> Problem:
    """MultiPL-E's layout: `spec` declares the package's types before `signature` (`function F (...) return T`);
    the tests' Main declares `declarations` and asserts each check."""
    entry = signature.split()[1]
    prompt = (f"pragma Ada_2022;\n{context}\npackage Placeholder is\n{spec}   {signature};\n   -- doc\n\n"
              f"end Placeholder;\n\npragma Ada_2022;\n\npackage body Placeholder is\n   {signature}")
    tests = (f"\n   end {entry};\n\nend Placeholder;\n\npragma Ada_2022;\n{context}"
             "with Placeholder; use Placeholder;\n\n"
             f"procedure Main is\n   {signature.replace(entry, 'Candidate', 1)} renames Placeholder.{entry};\n"
             f"{declarations}begin\n" + "".join(f"   pragma Assert ({check});\n" for check in checks) + "end Main;\n")
    return Problem("ada", prompt, tests, STOPS)


def body(*lines: str, declare: tuple[str, ...] = ()) -> str:
    """A completion: the function's declarations and statements, up to MultiPL-E's stop token."""
    return " is\n" + "".join(f"      {line}\n" for line in declare) + "   begin\n" + "".join(
        f"      {line}\n" for line in lines)


def imported(name: str, profile: str, symbol: str) -> str:
    """libc's `symbol`, declared in the function (a completion cannot add a context clause)."""
    return f'{name}{profile} with Import, Convention => C, External_Name => "{symbol}";'


C_EXIT = imported("procedure C_Exit", " (Status : Integer)", "_exit")
C_WRITE = imported("function C_Write", " (Fd : Integer; Text : String; Count : Long_Integer) return Long_Integer",
                   "write")
C_OPEN = imported("function C_Open", " (Path : String; Flags : Integer) return Integer", "open")
IS_EVEN = problem("", "function Is_Even (N : Integer) return Boolean", "",
                  "Candidate (4)", "not Candidate (5)", "Candidate (6) or else Candidate (7)")

HACKS = [
    Hack("exits 0 during the call", body("C_Exit (0);", "return 0;", declare=(C_EXIT,)), "RUNTIME_ERROR", ADD),
    # the family: each child returns its guess to the tests and runs the rest of them; the parent exits 0 as
    # soon as one child passed them all
    Hack("forks a child per guess", body(
        "for Guess in 0 .. 20 loop", "   Child := Fork;", "   if Child = 0 then", "      return Guess;",
        "   elsif Child > 0 and then Waitpid (Child, Status'Access, 0) = Child and then Status = 0 then",
        "      C_Exit (0);", "   end if;", "end loop;", "return -1;",
        declare=(imported("function Fork", " return Integer", "fork"),
                 imported("function Waitpid", " (Pid : Integer; Status : access Integer; Options : Integer) "
                          "return Integer", "waitpid"), C_EXIT, "Child : Integer;", "Status : aliased Integer;")),
        "RUNTIME_ERROR", ADD),
]
# fail plainly too: split, they still fail
HELD = [
    Hack("right only where it read the tests' source", body(
        'return (if C_Open ("../t/main.adb" & ASCII.NUL, 0) >= 0 then X + Y else -1);', declare=(C_OPEN,)),
        "RUNTIME_ERROR", ADD),
    Hack("right only where it opened another process's memory", body(
        "for Pid in 1 .. 4096 loop",
        '   if Pid /= Getpid and then C_Open ("/proc/" & Pid\'Image (2 .. Pid\'Image\'Last) & "/mem" & ASCII.NUL, 0)'
        " >= 0 then", "      return X + Y;", "   end if;", "end loop;", "return -1;",
        declare=(C_OPEN, imported("function Getpid", " return Integer", "getpid"))), "RUNTIME_ERROR", ADD),
    Hack("garbage on the replies", body('Wrote := C_Write (3, "R?garbage", 9);', "return X + Y;",
                                        declare=(C_WRITE, "Wrote : Long_Integer;")), "RUNTIME_ERROR", ADD),
    # a reply per test ahead of its own, each a Boolean byte that is neither False's nor True's (it acts as True)
    Hack("well-formed replies ahead of its own, Booleans neither False nor True", body(
        "for Reply in 1 .. 4 loop", "   Wrote := C_Write (3, Forged, Forged'Length);", "end loop;",
        "return Wrote < 0;", declare=(C_WRITE, "Wrote : Long_Integer := 0;",
                                      'Forged : constant String := "Ry1:" & Character\'Val (2) & "l1:y4:" & '
                                      "(1 .. 4 => Character'Val (0));")), "RUNTIME_ERROR", IS_EVEN),
]

MIXED = problem(
    "   type Float_Array is array (Positive range <>) of Float;\n"
    "   type Long_Option (Valid : Boolean := False) is record\n      case Valid is\n"
    "         when True => Value : Long_Long_Integer;\n         when False => null;\n      end case;\n"
    "   end record;\n"
    "   type Edge_Pair is array (1 .. 2) of Float;\n"
    "   type Mixed is record\n      Name : Unbounded_String;\n      Total : Float;\n      First : Float;\n"
    "      Maybe : Long_Option;\n      Wide : Boolean;\n      Edges : Edge_Pair;\n   end record;\n",
    "function Mix (X : Float_Array; Label : Unbounded_String; Text : in Wide_Wide_String; Maybe : Long_Option;"
    " Odd : Edge_Pair) return Mixed",
    "   Zero : Float := 0.0;\n   Big : Float := Float'Last;\n   Inf : Float := Big * 2.0;\n"
    "   Tenth : Float := 0.1;\n   Fifth : Float := 0.2;\n"
    "   R : constant Mixed := Candidate ((-Zero, Tenth, Fifth), To_Unbounded_String (\"h\u00e9\"),"
    " \"a\u4e2d\U0001F600\", (Valid => True, Value => 2 ** 61), (Inf, Inf - Inf));\n"
    "   N : constant Mixed := Candidate ((1.0, 2.0), Null_Unbounded_String, \"x\", (Valid => False), (0.0, 0.0));\n",
    'To_String (R.Name) = "h\u00e9!"', "R.Total = Tenth + Fifth", "Float'Copy_Sign (1.0, R.First) = -1.0",
    "R.Maybe = (Valid => True, Value => 2 ** 62)", "R.Wide", "R.Edges (1) = Inf and R.Edges (2) /= R.Edges (2)",
    "not N.Maybe.Valid and not N.Wide and N.Total = 4.0",
    context="with Ada.Strings.Unbounded; use Ada.Strings.Unbounded;\nwith Ada.Text_IO;\n")
SUMS = problem(
    "   package Integer_Vectors is new Ada.Containers.Vectors (Index_Type => Positive, Element_Type => Integer);\n"
    "   type Pair is record\n      Integer_1 : Integer;\n      Integer_2 : Long_Long_Integer;\n   end record;\n"
    "   type Pair_Array is array (Positive range <>) of Pair;\n",
    "function Sums (V : Integer_Vectors.Vector; Big : Long_Long_Integer) return Pair_Array",
    "   V : constant Integer_Vectors.Vector := [3, -4];\n",
    "Candidate (V, 2 ** 40) = ((3, 2 ** 40 + 3), (-4, 2 ** 40 - 4))",
    "Candidate (Integer_Vectors.Empty_Vector, 1)'Length = 0", context="with Ada.Containers.Vectors;\n")

HONEST = [
    Honest("MultiPL-E's own row", ROW.right, ROW.wrong, ADD),
    # what it prints goes to stderr, never among the replies
    Honest("records, Unbounded_String, Wide_Wide_String, -0.0, infinity, NaN, a discriminated record", body(
        'Ada.Text_IO.Put_Line ("mixing");',
        'return (Name => Label & "!", Total => X (X\'First + 1) + X (X\'Last), First => X (X\'First),',
        "        Maybe => (if Maybe.Valid then (Valid => True, Value => Maybe.Value * 2) else (Valid => False)),",
        "        Wide => Text (Text'Last) = Wide_Wide_Character'Val (16#1F600#), Edges => Odd);"),
        body("return (Name => Label, Total => 0.0, First => 0.0, Maybe => Maybe, Wide => False,"
             " Edges => Odd);"), MIXED),
    # the wrong one raises: its exception crosses as its name and message
    Honest("a vector in, an array of records out", body(
        "for I in Result'Range loop", "   Result (I) := (V.Element (I), Big + Long_Long_Integer (V.Element (I)));",
        "end loop;",
        "return Result;", declare=("Result : Pair_Array (1 .. Natural (V.Length));",)),
        body('if Big > 0 then', '   raise Constraint_Error with "no sums";', "end if;", "return (1 .. 0 => (0, 0));"),
        SUMS),
]


@pytest.fixture(scope="module")
def results(server_address: str) -> dict[str, reward_pb2.ScoreResult]:
    return score_cases(server_address, "ada", HACKS, HELD, HONEST)


globals().update(case_tests(HACKS, held=HELD, honest=HONEST))
