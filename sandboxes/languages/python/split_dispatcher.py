
from _rs_wire import _rs_number, _rs_read, _rs_write


def _rs_serve(function):
    import builtins
    import os
    # the prologue's, taken before the program's first line: what it prints goes to stderr, what it reads is empty
    calls, replies = os.fdopen(_rs_calls, "rb"), os.fdopen(_rs_replies, "wb")
    while (tag := calls.read(1)) == b"C":
        count = int(_rs_number(calls, b":"))
        args = [_rs_read(calls) for _ in range(count)]
        out = [b"R"]
        try:
            result = function(*args)
            _rs_write(result, out)
            _rs_write(args, out)
        except BaseException as exc:
            known = next(k for k in type(exc).__mro__ if getattr(builtins, k.__name__, None) is k)
            out = [b"X"]
            _rs_write(known.__name__, out)
            _rs_write(str(exc), out)
        replies.write(b"".join(out))
        replies.flush()


_rs_serve(@@entry@@)
