@@codec@@

// One call sent across, its result read back; arrays are values in PHP: what the function did to them stays there
function _rs_call(array $args): mixed
{
    static $calls = null, $replies = null;
    $calls ??= fopen('php://fd/3', 'wb');
    if ($replies === null) {
        $replies = fopen('php://fd/4', 'rb');
        for ($matched = 0; $matched < strlen(_RS_READY);) {
            $byte = fread($replies, 1);
            if ($byte === '' || $byte === false) {
                throw new Exception('the program ended before it answered');
            }
            $matched = $byte === _RS_READY[$matched] ? $matched + 1 : ($byte === "\0" ? 1 : 0);
        }
    }
    try {
        $out = 'C' . count($args) . ':' . implode('', array_map('_rs_write', $args));
    } catch (TypeError $e) {   // the benchmark's argument, not the program's doing
        fwrite(STDERR, "@@unsupported@@{$e->getMessage()}\n");
        exit(1);
    }
    fwrite($calls, $out);
    fflush($calls);
    $tag = fread($replies, 1);
    if ($tag === 'R') {
        $result = _rs_read($replies);
        _rs_read($replies);
        return $result;
    }
    if ($tag === 'X') {
        [$name, $message] = [_rs_read($replies), _rs_read($replies)];
        if (is_string($name) && is_string($message) && class_exists($name, false)
                && is_subclass_of($name, Throwable::class) && (new ReflectionClass($name))->isInternal()) {
            throw new $name($message);
        }
        throw new Exception('the function threw ' . var_export($name, true) . ': ' . var_export($message, true));
    }
    throw new Exception($tag === '' || $tag === false ? 'the program ended during a call'
                        : "the program's reply is not a value");
}

function @@entry@@(...$args)
{
    return _rs_call($args);
}
