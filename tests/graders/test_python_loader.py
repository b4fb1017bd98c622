"""The Python guard's loader, run directly under the sandbox's interpreter (tests/test_reward_hacks.py runs it
through the server): what an honest program still can do, and what the program cannot reach."""

from __future__ import annotations

import pathlib
import subprocess
import tempfile

import pytest

from reward_server.graders import end_marker, python_guard

PYTHON = "/usr/bin/python3"


def run(prompt: str, completion: str, tests: str) -> tuple[int, str, bool]:
    """(exit code, stderr without the marker, whether the marker was written)."""
    source, stdin = python_guard.prepare(prompt, completion, tests, "a" * 32)
    with tempfile.TemporaryDirectory() as workdir:
        (pathlib.Path(workdir) / "main.py").write_text(source)
        done = subprocess.run([PYTHON, "main.py"], cwd=workdir, input=stdin.encode(), capture_output=True, timeout=60)
    finished, stderr = end_marker.take(done.stderr, "a" * 32)
    return done.returncode, stderr.decode(), finished


def test_end_marker_is_found_and_stripped() -> None:
    assert end_marker.take(b"warning\nMARK\nlater\n", "MARK") == (True, b"warning\nlater\n")
    assert end_marker.take(b"no newline:MARK", "MARK") == (True, b"no newline:")
    assert end_marker.take(b"MAR\n", "MARK") == (False, b"MAR\n")


def test_the_program_sees_no_tests_anywhere_it_can_simply_look() -> None:
    completion = ("    return 1\nimport inspect, linecache, sys\nseen = sys.stdin.read() + open(__file__).read()\n"
                  "seen += ''.join(linecache.getlines('program.py', globals())) + inspect.getsource(f)\n"
                  "assert str(4700 + 11) not in seen and __name__ == '__main__', seen\n")
    assert run("def f():\n", completion, "assert f() == 1  # 4711\n") == (0, "", True)


def test_honest_programs_keep_python_s_behaviour() -> None:
    completion = ("    return x\nimport dataclasses, inspect, pickle\n@dataclasses.dataclass\nclass P:\n    x: int\n"
                  "assert pickle.loads(pickle.dumps(P(1))) == P(1)\nassert 'return x' in inspect.getsource(f)\n")
    tests = ("class Box:\n    def __init__(self, v):\n        self.v = v\n    def __eq__(self, other):\n"
             "        return self.v == other.v\n\nassert Box(f(2)) == Box(2)\n")
    assert run("def f(x):\n", completion, tests) == (0, "", True)


def test_a_refused_value_is_not_swallowed_by_the_tests() -> None:
    completion = "    class E:\n        def __eq__(self, other):\n            return True\n    return E()\n"
    tests = "try:\n    assert f() == 1\nexcept Exception:\n    pass\n"
    code, stderr, finished = run("def f():\n", completion, tests)
    assert (code, finished) == (1, False) and "GuardViolation" in stderr
    assert "main.py" not in stderr, stderr     # the loader's own frames are left out


@pytest.mark.parametrize("completion", [
    "    return 1\nimport sys\nsys.exit(0)\n",
    "    return 2\nimport sys, os\nsys.excepthook = lambda *a: os._exit(0)\n",
])
def test_no_marker_without_the_tests_finishing(completion: str) -> None:
    code, _, finished = run("def f():\n", completion, "assert f() == 1\n")
    assert (code, finished) == (0, False)


def test_program_syntax_errors_read_as_python_s() -> None:
    code, stderr, finished = run("def f():\n", "    return (\n", "assert f() == 1\n")
    assert (code, finished) == (1, False)
    assert 'File "program.py", line 2' in stderr and "SyntaxError" in stderr, stderr


def test_texts_reach_the_loader_intact() -> None:
    completion = '    """é 1 2\n    3 4"""\n    return "\\n"\n'
    assert run("def f():\n", completion, 'assert f() == "\\n" and f.__doc__ == "é 1 2\\n    3 4"\n') == (0, "", True)


def test_tests_lines_are_numbered_after_the_program() -> None:
    code, stderr, finished = run("def f():\n", "    return 1\n", "assert f() == 1\nassert f() == 2, 'two'\n")
    assert (code, finished) == (1, False)
    assert stderr.endswith('File "program.py", line 5, in <module>\n    assert f() == 2, \'two\'\n'
                           'AssertionError: two\n')


def test_tests_syntax_errors_are_numbered_within_the_tests() -> None:
    code, stderr, finished = run("def f():\n", "    return 1\n", "assert f() == 1\nassert f() ==\n")
    assert (code, finished) == (1, False)
    assert 'File "program.py", line 2\n    assert f() ==\n' in stderr and "During handling" not in stderr, stderr


ALWAYS_EQUAL = ("    class E:\n        def __eq__(self, other):\n            return True\n        __bool__ = __eq__\n"
                "    return E()\n")


@pytest.mark.parametrize("tests", [
    "assert f() == 1\n", "assert not (f() != 1)\n", "assert [x for x in [1] if f()] == [1]\n",
    "assert f() and True\n", "assert (1 if f() else 2) == 1\n", "if not f():\n    raise SystemExit(1)\n",
    "while f():\n    break\n", "def check(c):\n    assert c()\ncheck(f)\n", "assert f()\n",
])
def test_every_compared_or_truth_tested_value_is_checked(tests: str) -> None:
    code, stderr, finished = run("def f():\n", ALWAYS_EQUAL, tests)
    assert (code, finished) == (1, False) and "GuardViolation" in stderr, stderr
