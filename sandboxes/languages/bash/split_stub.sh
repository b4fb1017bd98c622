@@codec@@
# The entry function's calls sent to the program (fd 3), its replies read back (fd 4): it prints the string the
# program's function printed. What fails here fails the tests' shell itself, not only the subshell of a $(...).
trap 'exit 1' USR1
_rs_fail() {
    printf '%s\n' "$1" >&2
    kill -s USR1 "$$"
    exit 1
}
@@entry@@() {
    local _rs_out="C$#:" _rs_kind _rs_value _rs_result arg
    for arg; do _rs_put "$arg"; done
    printf '%s' "$_rs_out" >&3 2>/dev/null || _rs_fail "the program ended during a call"
    # a reply follows a NUL: before it, what the program wrote to its stdout before its dispatcher moved it
    IFS= read -r -d '' arg <&4 && IFS= read -r -N 1 arg <&4 || _rs_fail "the program ended during a call"
    [[ $arg == R ]] && _rs_take <&4 && [[ $_rs_kind == s ]] || _rs_fail "the program's reply is not a string"
    _rs_result=$_rs_value
    _rs_take <&4 || _rs_fail "the program's reply is not a value"   # the arguments after the call: bash's are copies
    printf '%s' "$_rs_result"
}
