@@codec@@

// The calls of `$function` answered on the standard output, one reply each after _RS_READY; what the program printed
// (still buffered: the language's run command) and prints from now on goes to stderr, never among the replies
function _rs_serve(callable $function): void
{
    ini_set('display_errors', 'stderr');
    while (ob_get_level() > 0) {
        fwrite(STDERR, ob_get_clean());
    }
    ob_start(static function (string $text): string {
        fwrite(STDERR, $text);
        return '';
    }, 1);
    fwrite(STDOUT, _RS_READY);
    fflush(STDOUT);
    while (fread(STDIN, 1) === 'C') {
        $args = [];
        for ($count = _rs_number(STDIN, ':'); count($args) < $count;) {
            $args[] = _rs_read(STDIN);
        }
        try {
            $out = 'R' . _rs_write($function(...$args)) . _rs_write($args);
        } catch (Throwable $e) {
            for ($known = new ReflectionClass($e); !$known->isInternal(); $known = $known->getParentClass()) {
            }
            $out = 'X' . _rs_write($known->getName()) . _rs_write($e->getMessage());
        }
        fwrite(STDOUT, $out);
        fflush(STDOUT);
    }
}

_rs_serve('@@entry@@');
