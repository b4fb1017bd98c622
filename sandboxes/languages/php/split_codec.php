// The wire format (docs/guards.md, "Values across the pipe"), both sides' reader and writer: data only, never code.

// the dispatcher's first reply bytes: what reached fd 1 before them (the program's top-level output past the run
// command's buffer, or flushed or written to STDOUT itself) is skipped by the stub
const _RS_READY = "\0split: ready\n";

// `$value`'s encoding: a list array as a list, any other array as a map
function _rs_write(mixed $value): string
{
    if ($value === null) {
        return 'N';
    }
    if (is_bool($value)) {
        return $value ? 'T' : 'F';
    }
    if (is_int($value)) {
        return "i$value;";
    }
    if (is_float($value)) {
        return 'd' . bin2hex(pack('E', $value));
    }
    if (is_string($value)) {
        return 's' . strlen($value) . ":$value";
    }
    if (!is_array($value)) {
        throw new TypeError('a ' . get_debug_type($value) . ' is not a value that crosses to the tests');
    }
    $list = array_is_list($value);
    $out = ($list ? 'l' : 'm') . count($value) . ':';
    foreach ($value as $key => $item) {
        $out .= ($list ? '' : _rs_write($key)) . _rs_write($item);
    }
    return $out;
}

function _rs_exactly($stream, int $count): string
{
    $data = $count === 0 ? '' : stream_get_contents($stream, $count);
    if (!is_string($data) || strlen($data) !== $count) {
        throw new Exception('the other side ended in the middle of a value');
    }
    return $data;
}

function _rs_number($stream, string $end): int
{
    $digits = '';
    while (($char = fgetc($stream)) !== $end) {
        if ($char === false || strlen($digits) > 100000) {
            throw new Exception('a number without its end in the wire format');
        }
        $digits .= $char;
    }
    $number = filter_var($digits, FILTER_VALIDATE_INT);
    if ($number === false) {
        throw new Exception("$digits is not an integer of this side");
    }
    return $number;
}

// One value read from `$stream`: built-in types only (tuples and sets as lists)
function _rs_read($stream): mixed
{
    $tag = _rs_exactly($stream, 1);
    switch ($tag) {
        case 'N':
        case 'U':
            return null;
        case 'T':
        case 'F':
            return $tag === 'T';
        case 'i':
            return _rs_number($stream, ';');
        case 'd':
            $bits = _rs_exactly($stream, 16);
            if (!preg_match('/\A[0-9a-f]{16}\z/', $bits)) {
                throw new Exception('a float that is not 16 hex digits');
            }
            return unpack('E', hex2bin($bits))[1];
    }
    $count = _rs_number($stream, ':');
    if ($count < 0) {
        throw new Exception('a negative count in the wire format');
    }
    switch ($tag) {
        case 's':
        case 'c':
        case 'y':
            return _rs_exactly($stream, $count);
        case 'l':
        case 't':
        case 'e':
            $items = [];
            for ($i = 0; $i < $count; $i++) {
                $items[] = _rs_read($stream);
            }
            return $items;
        case 'm':
            $pairs = [];
            for ($i = 0; $i < $count; $i++) {
                $key = _rs_read($stream);
                if (!is_int($key) && !is_string($key)) {
                    throw new Exception('a map key that is not an int or a string');
                }
                $pairs[$key] = _rs_read($stream);
            }
            return $pairs;
    }
    throw new Exception(var_export($tag, true) . ' is no tag of the wire format');
}
