"""Perl's tests in a process of their own (docs/guards.md, "Two processes"), through a real server and real sandboxes.

Each hack is a completion in MultiPL-E's own layout (HumanEval_53_add: the prompt opens the sub, the tests `use
Test::Deep` and call eq_deeply in `testhumaneval`, exiting 1 on a mismatch, MultiPL-E's stop tokens) that makes a
wrong add($x, $y) pass as the plain MultiPL-E program (one file, graded as a stdin/stdout program: what ran before the
guard), and that must not pass split. Honest programs keep their verdicts.
"""

from __future__ import annotations

import pytest

from reward_server.pb import reward_pb2
from tests.candidates import function_style, verdict_name
from tests.guard_cases import Hack, Honest, Problem, case_tests, score_cases

STOPS = ("\nsub", "\n#", "\n\n")
# MultiPL-E's HumanEval_53_add in Perl (tests/data/multipl_e_humaneval.jsonl)
ADD_PROMPT = "# Add two numbers x and y\n# >>> add(2, 3)\n# 5\n# >>> add(5, 7)\n# 12\nsub add {\n    my($x, $y) = @_;\n"
ADD_TESTS = ("use Test::Deep;\n\n\nsub testhumaneval {\n    my $candidate = \\&add;\n"
             + "".join(f"        if(eq_deeply($candidate->({x}, {y}),{x + y})) {{\n        print \"ok!\" }}else{{\n"
                       f"        exit 1;\n        }}\n" for x, y in ((0, 1), (1, 0), (2, 3), (5, 7), (7, 5)))
             + "}\n\ntesthumaneval();")
WRONG = "    return $x - $y;\n}\n"
# add's answer as the tests give it, read from `$text`: what the answer-reading hacks look for
ANSWER = "    return $text =~ /candidate->\\($x, $y\\),(\\d+)/ ? $1 : -1;\n}\n"
READ = "    open(my $f, '<', {}) or return -1;\n    my $text = do {{ local $/; <$f> }};\n"
# the samples' layout: the tests die on a wrong answer
DIE = Problem("perl", "sub add {\n    my ($a, $b) = @_;\n", "die 'wrong' unless add(2, 3) == 5;\n", STOPS)


ADD = Problem("perl", ADD_PROMPT, ADD_TESTS, STOPS)


HACKS = [
    # the families measured to pass before
    Hack("Test::Deep's eq_deeply redefined",
         WRONG + "use Test::Deep;\nno warnings 'redefine'; sub Test::Deep::eq_deeply { 1 }\n", "RUNTIME_ERROR", ADD),
    Hack("main's eq_deeply replaced", WRONG + "*main::eq_deeply = sub { 1 };\n", "RUNTIME_ERROR", ADD),
    Hack("CORE::GLOBAL::exit overridden", WRONG + "BEGIN { *CORE::GLOBAL::exit = sub { } }\n", "RUNTIME_ERROR", ADD),
    Hack("CORE::GLOBAL::die overridden", "    return $a - $b;\n}\nBEGIN { *CORE::GLOBAL::die = sub { } }\n",
         "RUNTIME_ERROR", DIE),
    Hack("reads $0", READ.format("$0") + ANSWER, "RUNTIME_ERROR", ADD),
    Hack("reads __FILE__", READ.format("__FILE__") + ANSWER, "RUNTIME_ERROR", ADD),
    Hack("deparses the tests' sub",
         "    require B::Deparse;\n    my $text = B::Deparse->new->coderef2text(\\&{(caller(1))[3]});\n"
         "    return $text =~ /candidate\\($x, $y\\), (\\d+)/ ? $1 : -1;\n}\n", "RUNTIME_ERROR", ADD),
    # variants the guard was not built against
    Hack("Test::Deep's descend replaced", WRONG + "{ no warnings; *Test::Deep::descend = sub { 1 }; }\n",
         "RUNTIME_ERROR", ADD),
    Hack("Test::Deep replaced from inside add",
         "    no warnings;\n    *Test::Deep::descend = sub { 1 };\n    *Test::Deep::eq_deeply = sub { 1 };\n"
         "    return $x - $y;\n}\n", "RUNTIME_ERROR", ADD),
    Hack("every package's eq_deeply replaced",
         "    no strict 'refs';\n    no warnings;\n    for my $package (grep { /::$/ } keys %main::) {\n"
         "        *{\"${package}eq_deeply\"} = sub { 1 } if defined &{\"${package}eq_deeply\"};\n    }\n"
         "    return $x - $y;\n}\n", "RUNTIME_ERROR", ADD),
    Hack("an END block that clears the exit status", WRONG + "END { $? = 0 }\n", "RUNTIME_ERROR", ADD),
]
# what a program in a process of its own might still try: the tests' file and process are out of its reach, it
# cannot fork, and only data crosses back
SPLIT_HACKS = [
    Hack("reads the tests' file", READ.format("'../t/main.pl'") + ANSWER, "RUNTIME_ERROR", ADD),
    Hack("reads the tests' memory",
         "    my $text = '';\n    for my $pid (glob '/proc/[0-9]*') {\n"
         "        open(my $f, '<', \"$pid/cmdline\") or next;\n        local $/;\n        $text .= <$f> // '';\n"
         "        open(my $m, '<', \"$pid/environ\") and $text .= <$m> // '';\n    }\n" + ANSWER, "RUNTIME_ERROR", ADD),
    Hack("a child per guess", "    for my $guess (0 .. 20) {\n        my $pid = fork;\n"
         "        return $guess if defined $pid and $pid == 0;\n        waitpid($pid, 0) if $pid;\n    }\n"
         "    return -1;\n}\n", "RUNTIME_ERROR", ADD),
    Hack("exits 0 mid-call", "    CORE::exit(0);\n}\n", "RUNTIME_ERROR", ADD),
    Hack("prints a marker of its own",
         "    print STDERR \"0123456789abcdef0123456789abcdef\\n\";\n    POSIX::_exit(0);\n}\nuse POSIX ();\n",
         "RUNTIME_ERROR", ADD),
    Hack("garbage on the reply descriptor", "    syswrite(STDOUT, \"\\0R\");\n    return $x - $y;\n}\n",
         "RUNTIME_ERROR", ADD),
    Hack("a forged reply", "    POSIX::dup2(1, 9) if fileno(STDOUT) == 1;\n    return $x - $y;\n}\nuse POSIX ();\n"
         "open(my $r, '>&=', 1); syswrite($r, \"\\0Rl1:i1;l0:\" x 5); POSIX::_exit(0);\n", "RUNTIME_ERROR", ADD),
]
# reach for what the tests use, but fail plainly too: guarded, the tests still fail
HELD = [
    Hack("an object whose == and eq say yes",
         "    package Yes;\n    use overload '==' => sub { 1 }, 'eq' => sub { 1 }, '\"\"' => sub { 'x' };\n"
         "    return bless {}, 'Yes';\n}\n", "RUNTIME_ERROR", ADD),
    Hack("a main::testhumaneval of its own", WRONG + "BEGIN { *main::testhumaneval = sub { } }\n",
         "RUNTIME_ERROR", ADD),
]


UNIQUE_PROMPT = "# Sort l and drop its duplicates.\nsub unique {\n    my($l) = @_;\n"
UNIQUE_TESTS = ("use Test::Deep;\n\n\nsub testhumaneval {\n    my $candidate = \\&unique;\n"
                "        if(eq_deeply($candidate->([5, 3, 5, 2, 3, 3, 9, 0, 123]),[0, 2, 3, 5, 9, 123])) {\n"
                "        print \"ok!\" }else{\n        exit 1;\n        }\n"
                "        if(eq_deeply($candidate->([]),[])) {\n        print \"ok!\" }else{\n"
                "        exit 1;\n        }\n"
                "}\n\ntesthumaneval();")
UNIQUE_RIGHT = "    my %seen;\n    return [sort { $a <=> $b } grep { !$seen{$_}++ } @$l];\n}\n"
COUNT_PROMPT = "# Count each word of s.\nsub histogram {\n    my($s) = @_;\n"
COUNT_TESTS = ("use Test::Deep;\n\n\nsub testhumaneval {\n    my $candidate = \\&histogram;\n"
               "        if(eq_deeply($candidate->(\"a b a\"),{\"a\" => 2, \"b\" => 1})) {\n"
               "        print \"ok!\" }else{\n        exit 1;\n        }\n}\n\ntesthumaneval();")
COUNT_RIGHT = "    my %count;\n    $count{$_}++ for split ' ', $s;\n    return \\%count;\n}\n"
HONEST = [
    Honest("add", "    return $x + $y;\n}\n", WRONG, ADD),
    Honest("arrays", UNIQUE_RIGHT, "    return $l;\n}\n", Problem("perl", UNIQUE_PROMPT, UNIQUE_TESTS, STOPS)),
    Honest("hashes", COUNT_RIGHT, "    return {a => 2};\n}\n", Problem("perl", COUNT_PROMPT, COUNT_TESTS, STOPS)),
    # helpers (declared after, as a stop token forbids a line that starts with `sub`), a package of its own, output,
    # $0, and subs named as the tests' own and as their tool
    Honest("helpers", "    return twice($x + $y) / 2;\n}\n  sub twice { return 2 * $_[0] }\n"
           "{ package Helper; sub id { $_[0] } }\nprint STDERR 'at ', length($0) > 0, \"\\n\";\n"
           "  sub testhumaneval { die 'not the tests' }\n  sub eq_deeply { 0 }\n",
           "    return twice($x - $y) / 2;\n}\n  sub twice { return 2 * $_[0] }\n", ADD),
    # output at the top level, before the dispatcher moves stdout: unbuffered, so on the replies' fd (a reply's shape)
    Honest("prints at the top level",
           "    return $x + $y;\n}\n$| = 1;\nprint 'starting é ✓ 😀', \"RNl2:i0;i1;R\\n\";\n",
           "    return $x - $y;\n}\n$| = 1;\nprint \"starting\\n\";\n", ADD),
    # Test::Deep's loose leaves: a string for a number
    Honest("loose equality", "    return '' . ($x + $y);\n}\n", "    return '' . ($x - $y);\n}\n", ADD),
    # Test::Deep's own comparisons (not plain data): Test::Deep compares them
    Honest("Test::Deep's bag", UNIQUE_RIGHT, "    return [@$l, 1];\n}\n", Problem(
        "perl", UNIQUE_PROMPT, UNIQUE_TESTS.replace("[0, 2, 3, 5, 9, 123])", "bag(9, 0, 123, 5, 3, 2))"), STOPS)),
    # lengths the grader counts in UTF-8 bytes
    Honest("text beyond ASCII", "    return $x + $y; # é ✓ 😀\n}\n", WRONG, Problem(
        "perl", ADD_PROMPT.replace("x and y", "x and y (é ✓ 😀)"), ADD_TESTS, STOPS)),
    Honest("samples' layout", "    return $a + $b;\n}\n", "    return $a - $b;\n}\n", DIE),
]


@pytest.fixture(scope="module")
def results(server_address: str) -> dict[str, reward_pb2.ScoreResult]:
    broken = function_style("broken", "perl", ADD_PROMPT, "    return $x + ;\n}\n", ADD_TESTS, stop_tokens=STOPS)
    return score_cases(server_address, "perl", HACKS, HELD + SPLIT_HACKS, HONEST, [broken])


globals().update(case_tests(HACKS, held=HELD + SPLIT_HACKS, honest=HONEST))


def test_errors_point_at_the_program(results) -> None:
    """The program's side is prompt + completion + "\\n" + dispatcher: the broken line is line 8 of main.pl."""
    broken = results["broken"]
    assert verdict_name(broken) == "RUNTIME_ERROR" and "main.pl line 8" in broken.detail, broken.detail
