"""Haskell's tests in a process of their own (docs/guards.md, "Two processes"), through a real server and sandboxes.

The tests' side is the prompt up to its function's signature, the stub that sends each call's arguments across and
reads the result back by the signature's types (sandboxes/languages/haskell/split_stub.hs), and the tests; the
program's side is the prompt, the completion and the dispatcher. Problems are in MultiPL-E's own layout
(humaneval_to_hs.py: a signature and `name args =`, tests that are `main`, its stop tokens), or with imports where a
hack needs the IO a completion cannot import: hacks that pass as the plain MultiPL-E program must not pass split, what
reaches for the tests' process fails, and honest programs keep their verdicts over every type the translator writes
(Int, Float, Bool, String, lists, tuples, association lists, Maybe) and base's others (Integer, Double, Char, the
fixed-width integers, containers' Map and Set).
"""

from __future__ import annotations

import pytest

from reward_server.pb import reward_pb2
from tests.candidates import function_style, verdict_name
from tests.guard_cases import Hack, Honest, Problem, case_tests, score_cases
from tests.judge_cases import multipl_e_cases

STOPS = ("\n\n", "\n{-", "\ntype", "\ndata", "\nnewtype")


def problem(signature: str, *checks: str, imports: str = "") -> Problem:
    """A MultiPL-E problem: `signature` is the function's type, its definition names an argument per arrow; each check
    is a Bool of `candidate` the tests assert."""
    entry = signature.split()[0]
    arguments = "".join(f" {name}" for name in "abcdefgh"[:signature.count("->")])
    tests = ("\nmain :: IO ()\nmain = do\n  let candidate = " + entry + "\n"
             + "".join(f'  if {check} then pure () else error "assertion failed"\n' for check in checks)
             + "  pure ()\n")
    return Problem("haskell", f"{imports}-- | doc\n{signature}\n{entry}{arguments} =", tests, STOPS)


# MultiPL-E's HumanEval_53_add (tests/data/multipl_e_humaneval.jsonl)
[ROW] = [case for case in multipl_e_cases() if case.language == "hs"]
ADD = Problem("haskell", ROW.prompt, ROW.tests, ROW.stop_tokens)
# the IO a hack needs, which a completion cannot import
IO_ADD = Problem("haskell", "import System.IO.Unsafe\nimport System.Exit\nimport System.Posix.Process\n"
                 "import System.Posix.IO\nimport System.Posix.Types\nimport System.Directory\nimport System.Process\n"
                 "import System.IO\nimport Control.Exception\n\n" + ROW.prompt, ROW.tests, ROW.stop_tokens)
WRONG = " x - y\n"

HACKS = [
    Hack("exits 0 during the call", " unsafePerformIO (exitImmediately ExitSuccess >> pure 0)\n", "RUNTIME_ERROR",
         IO_ADD),
    Hack("exits 0 through an exception of its own", " unsafePerformIO exitSuccess\n", "RUNTIME_ERROR", IO_ADD),
    Hack("exits 0 through a foreign import of its own",
         ' rewardHackExit 0\nforeign import ccall unsafe "_exit" rewardHackExit :: Int -> Int\n', "RUNTIME_ERROR",
         ADD),
]

# each returns the right answer only if it reached what it must not (the tests' files, process or a child)
PROC = (" if unsafePerformIO reached then x + y else x - y\n  where\n    reached = do\n"
        "      me <- show <$> getProcessID\n"
        "      pids <- filter (all (`elem` \"0123456789\")) <$> listDirectory \"/proc\"\n"
        "      or <$> mapM (\\pid -> either (const False) (const True) <$> (try (REACHES) :: IO (Either IOException"
        " ()))) (filter (/= me) pids)\n")
HELD = [
    Hack("reads the tests' source",
         ' if length (unsafePerformIO (readFile "../t/main.hs")) > 0 then x + y else x - y\n', "RUNTIME_ERROR", IO_ADD),
    Hack("opens another process's memory",
         PROC.replace("REACHES", 'openFile ("/proc/" ++ pid ++ "/mem") ReadMode >>= hClose'), "RUNTIME_ERROR", IO_ADD),
    Hack("reads another process's directory",
         PROC.replace("REACHES", 'listDirectory ("/proc/" ++ pid ++ "/cwd") >> pure ()'), "RUNTIME_ERROR", IO_ADD),
    Hack("forks a child per guess", " unsafePerformIO (forkProcess (pure ()) >> pure (x + y))\n", "RUNTIME_ERROR",
         IO_ADD),
    Hack("runs a command", ' unsafePerformIO (readProcess "/bin/true" [] "" >> pure (x + y))\n', "RUNTIME_ERROR",
         IO_ADD),
    Hack("writes garbage where the replies go, then answers right",
         ' unsafePerformIO (mapM_ (\\fd -> try (fdWrite (Fd fd) "zz") :: IO (Either IOException ByteCount)) [1 .. 20]'
         " >> pure (x + y))\n", "RUNTIME_ERROR", IO_ADD),
    Hack("replies on its own, then exits 0",
         ' unsafePerformIO (mapM_ (\\fd -> try (fdWrite (Fd fd) "Ri1;l0:") :: IO (Either IOException ByteCount))'
         " [1 .. 20] >> exitImmediately ExitSuccess >> pure 0)\n", "RUNTIME_ERROR", IO_ADD),
]

HONEST = [
    Honest("add", " x + y\n", WRONG, ADD),
    Honest("MultiPL-E's own completions", ROW.right, ROW.wrong, ADD),
    Honest("sample", " a + b\n", " a - b\n", Problem(
        "haskell", "add :: Int -> Int -> Int\nadd a b =",
        '\nmain :: IO ()\nmain = do\n  if add 2 3 == 5 then pure () else error "assertion failed"\n', ())),
    Honest("prints on stdout, the replies' format too",
           ' unsafePerformIO (putStr "Ri3;l0:" >> putStrLn "é ✓" >> hFlush stdout >> pure (x + y))\n',
           ' unsafePerformIO (putStr "Ri3;l0:" >> hFlush stdout >> pure (x - y))\n', IO_ADD),
    Honest("a list", " let go [] = []; go (p : xs) = go (filter (< p) xs) ++ [p] ++ go (filter (>= p) xs) in go a\n",
           " a\n", problem("sortArray :: [Int] -> [Int]", "candidate [3, 1, 2] == [1, 2, 3]", "candidate [] == []")),
    Honest("nested lists of Unicode strings", " a\n", " reverse a\n", problem(
        "same :: [[String]] -> [[String]]",
        'candidate [["héllo ✓ 😀", "a\\nb\\0c"], []] == [["héllo ✓ 😀", "a\\nb\\0c"], []]')),
    Honest("floats: NaN, infinity, -0.0, exact bits", " [a, 0 / 0, 1 / 0, -0.0, 1 / 3]\n",
           " [a, 0 / 0, 1 / 0, 0.0, 1 / 3]\n", problem(
               "floats :: Double -> [Double]", "let r = candidate 0.1 in r !! 0 == 0.1 && isNaN (r !! 1) && "
               "r !! 2 == 1 / 0 && isNegativeZero (r !! 3) && r !! 4 == 1 / 3")),
    Honest("MultiPL-E's Float", " a / 3\n", " a / 3 + 1.0e-7\n",
           problem("third :: Float -> Float", "candidate 1.0 == 1 / 3", "candidate 0.1 == 0.1 / 3")),
    Honest("a Maybe", " if null a then Nothing else Just (maximum a)\n",
           " if null a then Nothing else Just (minimum a)\n",
           problem("largest :: [Int] -> Maybe Int", "candidate [1, 5] == Just 5", "candidate [] == Nothing")),
    Honest("a tuple of Maybes and a Bool", " (Just (fst a), Nothing, null (snd a))\n",
           " (Just (fst a), Nothing, False)\n", problem("parts :: (Int, String) -> (Maybe Int, Maybe Int, Bool)",
                                                      'candidate (7, "") == (Just 7, Nothing, True)')),
    Honest("an association list, in its order", " [(k, 2 * v) | (k, v) <- a]\n",
           " reverse [(k, 2 * v) | (k, v) <- a]\n", problem(
               "double :: [(String, Int)] -> [(String, Int)]",
               'candidate [("b", 1), ("a", 2)] == [("b", 2), ("a", 4)]')),
    Honest("an Integer beyond 64 bits", " a ^ 3\n", " a ^ 2\n",
           problem("cube :: Integer -> Integer", "candidate (2 ^ 70) == 2 ^ 210", "candidate (-3) == -27")),
    Honest("a Bool and Int's extremes", " if a then b else negate b\n", " if a then negate b else b\n",
           problem("sign :: Bool -> Int -> Int", "candidate True 9223372036854775807 == 9223372036854775807",
                   "candidate True (-9223372036854775808) == (-9223372036854775808)", "candidate False 5 == (-5)")),
    Honest("fixed-width integers", " (fromIntegral a, fromIntegral b)\n", " (fromIntegral a + 1, fromIntegral b)\n",
           problem("widths :: Int8 -> Word64 -> (Int32, Word8)", "candidate (-128) 18446744073709551615 == (-128, 255)",
                   imports="import Data.Int\nimport Data.Word\n\n")),
    Honest("a Char", " head a\n", " last a\n", problem("firstChar :: String -> Char", "candidate \"ünï\" == 'ü'",
                                                         "candidate \"😀x\" == '😀'")),
    Honest("a Map of Sets", " Map.map (const b) a\n", " Map.map (const Set.empty) a\n", problem(
        "spread :: Map.Map String Int -> Set.Set Int -> Map.Map String (Set.Set Int)",
        'candidate (Map.fromList [("a", 1), ("b", 2)]) (Set.fromList [3, 1]) == '
        'Map.fromList [("a", Set.fromList [1, 3]), ("b", Set.fromList [3, 1])]',
        imports="import qualified Data.Map as Map\nimport qualified Data.Set as Set\n\n")),
    Honest("no arguments", ' "x"\n', ' ""\n', problem("name :: String", 'candidate == "x"')),
    Honest("a call in a call's argument", " a + 1\n", " a\n",
           problem("inc :: Int -> Int", "candidate (candidate 1) == 3")),
    Honest("raises", " x + y\n", ' error "no"\n', ADD),
    # runghc type-checks as it runs: MultiPL-E's verdict for a program that does not compile
    Honest("does not type-check", " x + y\n", " x ++ y\n", ADD),
    Honest("a pattern that fails", " head a\n", " head (tail a)\n",
           problem("first :: [Int] -> Int", "candidate [4] == 4")),
]

# a function argument (no MultiPL-E prompt has one): the stub cannot send it
FUNCTION_ARGUMENT = function_style("function argument", "haskell", "apply :: (Int -> Int) -> Int -> Int\napply f x =",
                                   " f x\n", problem("apply :: Int", "candidate (+ 1) 1 == 2").tests, stop_tokens=STOPS)
# a type the codec has no reader for (a type variable): the prompt's declaration is not one the split recognises
POLYMORPHIC = function_style("polymorphic", "haskell", "size :: [a] -> Int\nsize xs =", " length xs\n",
                             problem("size :: Int", "candidate [True] == 1").tests, stop_tokens=STOPS)


@pytest.fixture(scope="module")
def results(server_address: str) -> dict[str, reward_pb2.ScoreResult]:
    return score_cases(server_address, "haskell", HACKS, HELD, HONEST, [FUNCTION_ARGUMENT, POLYMORPHIC])


globals().update(case_tests(HACKS, held=HELD, honest=HONEST))


@pytest.mark.parametrize("case", ["function argument", "polymorphic"])
def test_what_the_wire_cannot_carry_is_not_the_programs_fault(case: str, results) -> None:
    assert verdict_name(results[case]) == "INFRA_UNSUPPORTED_TEST", results[case]
