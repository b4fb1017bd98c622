"""LiveCodeBench's call-based harness (its `grade_call_based`), one test per run (docs/grading.md).

The grader fills in the marker, the function's name, whether the program declares the Solution class and the name
of the program's file, then runs this file with one test's arguments on stdin: LiveCodeBench's input text, one JSON
value a line, read before the program runs. The program runs as LiveCodeBench runs it: its import block first, then
the code, in a fresh module named tmp_sol. The callee is a method of `Solution()`, else the module's function of that
name; a tuple result becomes a list. The result goes to stdout after the marker in the grader's value format (JSON,
with tagged objects for dicts, tuples, sets and values that are not plain data), then the marker to stderr. The
grader compares it with the expected value by Python equality (reward_server/graders/call_based.py).
"""

import json
import os
import sys
import types

MARKER = "{marker}"
FUNCTION = "{function}"
SOLUTION_CLASS = "{solution}" == "1"
PROGRAM_FILE = "{program_file}"
# LiveCodeBench's import_string, verbatim
IMPORTS = (
    "from string import *\nfrom re import *\nfrom datetime import *\nfrom collections import *\n"
    "from heapq import *\nfrom bisect import *\nfrom copy import *\nfrom math import *\nfrom random import *\n"
    "from statistics import *\nfrom itertools import *\nfrom functools import *\nfrom operator import *\n"
    "from io import *\nfrom sys import *\nfrom json import *\nfrom builtins import *\nfrom typing import *\n"
    "import string\nimport re\nimport datetime\nimport collections\nimport heapq\nimport bisect\nimport copy\n"
    "import math\nimport random\nimport statistics\nimport itertools\nimport functools\nimport operator\n"
    "import io\nimport sys\nimport json\nsys.setrecursionlimit(50000)\n"
)
# Taken before the program runs: what it does to these modules cannot reach the report.
WRITE = os.write
DUMPS = json.dumps
ITERATE = {list: list.__iter__, tuple: tuple.__iter__, set: set.__iter__, frozenset: frozenset.__iter__}
TAGS = {tuple: "t", set: "s", frozenset: "fs"}


def plain(value):
    """The value as the grader reads it back. A subclass of a builtin type counts as that type, read through the
    builtin type's own methods: what a subclass overrides cannot change what is reported."""
    kind = type(value)
    if value is None or kind is bool:
        return value
    for base, convert in ((int, int.__int__), (float, float.__float__), (str, str.__str__)):
        if issubclass(kind, base):
            return convert(value)
    if issubclass(kind, dict):
        return {"d": [[plain(key), plain(item)] for key, item in dict.items(value)]}
    for base, iterate in ITERATE.items():
        if issubclass(kind, base):
            items = [plain(item) for item in iterate(value)]
            return {TAGS[base]: items} if base in TAGS else items
    return {"o": kind.__qualname__}


def write_all(fd: int, data: bytes) -> None:
    while data:
        data = data[WRITE(fd, data):]


def main() -> None:
    arguments = [json.loads(line) for line in sys.stdin.read().split("\n")]
    with open(PROGRAM_FILE, encoding="utf-8") as stream:
        code = IMPORTS + "\n\n" + stream.read()
    module = types.ModuleType("tmp_sol", "")
    exec(code, module.__dict__)
    callee = getattr(module.Solution() if SOLUTION_CLASS else module, FUNCTION)
    result = callee(*arguments)
    if isinstance(result, tuple):
        result = list(result)
    digits = sys.get_int_max_str_digits()
    sys.set_int_max_str_digits(0)
    try:
        report = DUMPS(plain(result))
    finally:
        sys.set_int_max_str_digits(digits)
    sys.stdout.flush()
    write_all(1, (MARKER + report + "\n").encode())
    write_all(2, (MARKER + "\n").encode())


if __name__ == "__main__":
    main()
