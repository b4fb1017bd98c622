# The wire format (docs/guards.md, "Values across the pipe"), both sides' reader and writer (data only, never code),
# and both sides' ends of the pipe: the stub's calls and the dispatcher's loop. A module that the zygote holds
# imported, so no run compiles any of it; it holds nothing of either side's own (the marker is the stub's argument).
import builtins as _rs_builtins
import os as _rs_os
import signal as _rs_signal
import struct as _rs_struct
import sys as _rs_sys


def _rs_write(value, out):
    """Append `value`'s encoding to the list of bytes `out`; a built-in's subclass goes as the built-in's value."""
    if value is None:
        out.append(b"N")
    elif value is True or value is False:
        out.append(b"T" if value else b"F")
    elif isinstance(value, int):
        out.append(b"i%s;" % int.__repr__(value).encode())
    elif isinstance(value, float):
        out.append(b"d" + _rs_struct.pack(">d", value).hex().encode())
    elif isinstance(value, str):
        data = str.__str__(value).encode("utf-8", "surrogatepass")
        out.append(b"s%d:%s" % (len(data), data))
    elif isinstance(value, (bytes, bytearray)):
        data = bytes(value)
        out.append(b"y%d:%s" % (len(data), data))
    elif isinstance(value, (list, tuple, set, frozenset)):
        kind = b"l" if isinstance(value, list) else b"t" if isinstance(value, tuple) else b"e"
        items = (list.copy if kind == b"l" else tuple if kind == b"t" else list)(value)
        out.append(b"%s%d:" % (kind, len(items)))
        for item in items:
            _rs_write(item, out)
    elif isinstance(value, dict):
        pairs = list(dict.items(value))
        out.append(b"m%d:" % len(pairs))
        for key, item in pairs:
            _rs_write(key, out)
            _rs_write(item, out)
    else:
        raise TypeError(f"a {type(value).__name__} is not a value that crosses to the tests")


def _rs_number(stream, end):
    digits = bytearray()
    while (byte := stream.read(1)) != end:
        if not byte or len(digits) > 100000:
            raise ValueError("a number without its end in the wire format")
        digits += byte
    return digits.decode("ascii")


def _rs_exactly(stream, count):
    data = stream.read(count)
    if len(data) != count:
        raise EOFError("the other side ended in the middle of a value")
    return data


def _rs_read(stream):
    """One value read from the binary stream: built-in types only."""
    tag = _rs_exactly(stream, 1)
    if tag == b"N" or tag == b"U":
        return None
    if tag in (b"T", b"F"):
        return tag == b"T"
    if tag == b"i":
        return int(_rs_number(stream, b";"))
    if tag == b"d":
        return _rs_struct.unpack(">d", bytes.fromhex(_rs_exactly(stream, 16).decode("ascii")))[0]
    count = int(_rs_number(stream, b":"))
    if tag in (b"s", b"c"):
        return _rs_exactly(stream, count).decode("utf-8", "surrogatepass")
    if tag == b"y":
        return _rs_exactly(stream, count)
    if tag == b"m":
        pairs = {}
        for _ in range(count):
            key = _rs_read(stream)
            pairs[key] = _rs_read(stream)
        return pairs
    items = [_rs_read(stream) for _ in range(count)]
    if tag == b"l":
        return items
    if tag == b"t":
        return tuple(items)
    if tag == b"e":
        return set(items)
    raise ValueError(f"{tag!r} is no tag of the wire format")


_rs_pipe = []   # the tests' side's ends, opened at its first call: the calls written on fd 3, the replies read on fd 4


def _rs_call(args, unsupported):
    """The tests' side: one call of the entry function sent across, its result read back (the arguments it changed
    changed here too); `unsupported` goes before what the wire cannot carry, on stderr."""
    if not _rs_pipe:
        _rs_pipe[:] = _rs_os.fdopen(3, "wb"), _rs_os.fdopen(4, "rb")
    calls, replies = _rs_pipe
    out = [b"C%d:" % len(args)]
    try:
        for arg in args:
            _rs_write(arg, out)
    except TypeError as exc:   # the benchmark's argument, not the program's doing
        print(unsupported + str(exc), file=_rs_sys.stderr, flush=True)
        _rs_os._exit(1)
    try:
        calls.write(b"".join(out))
        calls.flush()
        tag = replies.read(1)
    except BrokenPipeError:
        tag = b""
    if tag == b"R":
        result, after = _rs_read(replies), _rs_read(replies)
        for arg, changed in zip(args, after if type(after) is list else (), strict=False):
            if type(arg) is list and type(changed) is list:
                arg[:] = changed
            elif type(arg) in (dict, set) and type(changed) is type(arg):
                arg.clear()
                arg.update(changed)
        return result
    if tag == b"X":
        name, message = _rs_read(replies), _rs_read(replies)
        kind = getattr(_rs_builtins, name, None) if type(name) is str else None
        if isinstance(kind, type) and issubclass(kind, Exception):
            raise kind(message)
        raise RuntimeError(f"the function raised {name}: {message}")
    if tag == b"":
        _rs_out_of_cpu()
        raise RuntimeError("the program ended during a call")
    raise RuntimeError("the program's reply is not a value")


def _rs_out_of_cpu():
    """Where the program is this process's child (forked from the zygote), a program that ran out of CPU time is the
    run's CPU-time death, as pair makes it where the two are siblings."""
    try:
        _, status = _rs_os.waitpid(-1, 0)
    except ChildProcessError:
        return
    if _rs_os.WIFSIGNALED(status) and _rs_os.WTERMSIG(status) == _rs_signal.SIGXCPU:
        print("pair: the program ran out of CPU time during a call", file=_rs_sys.stderr, flush=True)
        _rs_os._exit(128 + _rs_signal.SIGXCPU)


def _rs_serve(function, calls_fd, replies_fd):
    """The program's side: each call read from `calls_fd` answered on `replies_fd` (the prologue's, taken before the
    program's first line): its result and its arguments after it, or the built-in type and message it raised."""
    calls, replies = _rs_os.fdopen(calls_fd, "rb"), _rs_os.fdopen(replies_fd, "wb")
    while calls.read(1) == b"C":
        count = int(_rs_number(calls, b":"))
        args = [_rs_read(calls) for _ in range(count)]
        out = [b"R"]
        try:
            result = function(*args)
            _rs_write(result, out)
            _rs_write(args, out)
        except BaseException as exc:
            known = next(k for k in type(exc).__mro__ if getattr(_rs_builtins, k.__name__, None) is k)
            out = [b"X"]
            _rs_write(known.__name__, out)
            _rs_write(str(exc), out)
        replies.write(b"".join(out))
        replies.flush()
