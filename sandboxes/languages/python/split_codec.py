# The wire format (docs/guards.md, "Values across the pipe"), both sides' reader and writer: data only, never code.
import struct as _rs_struct


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
