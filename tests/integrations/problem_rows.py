"""The problems and responses the framework integrations' tests share, as rows of benchmarks/FORMAT.md: a two-test
stdin problem, the same in a language no server knows (infra), and an equation."""

from __future__ import annotations

ADD = {"id": "add", "language": "python", "prompt": "Read two integers, print their sum.",
       "io_tests": [{"stdin": "2 3\n", "expected_stdout": "5\n"}, {"stdin": "10 -4\n", "expected_stdout": "6\n"}],
       "extraction": "last_block"}
PROBLEMS = [ADD, {**ADD, "id": "add-klingon", "language": "klingon"},
            {"id": "comm", "prompt": "Does x * y = y * x imply x = x?", "expected": True}]
RIGHT = "Read both, add.\n```python\na, b = map(int, input().split())\nprint(a + b)\n```"
HALF = "```python\nprint(5)\n```"   # passes the first test only
