from _rs_wire import _rs_read, _rs_write
import builtins as _rs_builtins
import os as _rs_os
import sys as _rs_sys

_rs_calls = _rs_os.fdopen(3, "wb")
_rs_replies = _rs_os.fdopen(4, "rb")


def _rs_call(args):
    out = [b"C%d:" % len(args)]
    try:
        for arg in args:
            _rs_write(arg, out)
    except TypeError as exc:   # the benchmark's argument, not the program's doing
        print("@@unsupported@@" + str(exc), file=_rs_sys.stderr, flush=True)
        _rs_os._exit(1)
    try:
        _rs_calls.write(b"".join(out))
        _rs_calls.flush()
        tag = _rs_replies.read(1)
    except BrokenPipeError:
        tag = b""
    if tag == b"R":
        result, after = _rs_read(_rs_replies), _rs_read(_rs_replies)
        for arg, changed in zip(args, after if type(after) is list else ()):
            if type(arg) is list and type(changed) is list:
                arg[:] = changed
            elif type(arg) in (dict, set) and type(changed) is type(arg):
                arg.clear()
                arg.update(changed)
        return result
    if tag == b"X":
        name, message = _rs_read(_rs_replies), _rs_read(_rs_replies)
        kind = getattr(_rs_builtins, name, None) if type(name) is str else None
        if isinstance(kind, type) and issubclass(kind, Exception):
            raise kind(message)
        raise RuntimeError(f"the function raised {name}: {message}")
    raise RuntimeError("the program ended during a call" if tag == b"" else "the program's reply is not a value")


def @@entry@@(*args):
    return _rs_call(args)
