"""The trusted wrapper a Python checker runs under (the language table's `checker`): reward_server/graders/checkers.py
fills it in and runs it as the checker's program, the checker's own source beside it in CHECKER_FILE. Never imported
by the server.

Python ends a source that does not parse, and an exception nobody catches, with exit status 1: testlib's "wrong
answer". Here the checker's source is parsed first (only that, given PARSE_ONLY alone, once before the checks), then
run as `__main__` with the checker's arguments; if it does not parse, or an exception escapes it, the traceback goes
to stderr and the run ends with FAILED, which testlib's protocol never reads as the program's fault. Only the
checker's own exits (sys.exit, SystemExit, os._exit) end it with 1 or 2. Standard library only: this runs under the
sandbox's /usr/bin/python3.
"""

import os
import sys
import traceback
import types
from typing import NoReturn

CHECKER_FILE = "{checker_file}"
PARSE_ONLY = "{parse_only}"
FAILED = int("{failed}")


def fail(error: BaseException) -> NoReturn:
    """The checker's error on stderr, its traceback less this file's frame; the run ends with FAILED."""
    traceback.print_exception(type(error), error, error.__traceback__.tb_next)
    sys.stderr.flush()
    os._exit(FAILED)


def main() -> None:
    with open(CHECKER_FILE, "rb") as f:
        source = f.read()
    try:
        code = compile(source, CHECKER_FILE, "exec", dont_inherit=True)
    except Exception as error:  # SyntaxError, or what a source no parser takes raises (null bytes, nesting)
        fail(error)
    if sys.argv[1:] == [PARSE_ONLY]:
        return
    module = types.ModuleType("__main__")
    module.__file__ = CHECKER_FILE
    sys.modules["__main__"] = module
    sys.argv = [CHECKER_FILE, *sys.argv[1:]]
    try:
        exec(code, vars(module))
    except SystemExit:
        raise
    except BaseException as error:
        fail(error)


if __name__ == "__main__":
    main()
