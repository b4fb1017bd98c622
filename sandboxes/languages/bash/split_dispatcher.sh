# The completion either closed the prompt's function or left it for the tests' brace to close. In the second case
# the next two lines end that function's body (FUNCNAME skips them) and the brace after them closes it; in the
# first they run at the top level, and the alias opens a group for that brace to close.
[[ ${FUNCNAME[0]-} ]] || { shopt -s expand_aliases; alias _rs_reopen='{ :'; }
[[ ${FUNCNAME[0]-} ]] || _rs_reopen
}
shopt -u expand_aliases
@@codec@@
# The entry function's calls read from fd 0, one reply each on fd 1 after a NUL; each call runs in a subshell whose
# stdout is its result, as in the tests' $(...).
_rs_serve() {
    local _rs_out _rs_kind _rs_value tag count index result calls replies
    local -a args
    # what the program prints goes to stderr, never among the replies; its stdin is empty, as in MultiPL-E
    exec {replies}>&1 1>&2 {calls}<&0 0</dev/null
    while LC_ALL=C IFS= read -r -N 1 tag <&"$calls" && [[ $tag == C ]] &&
        LC_ALL=C IFS= read -r -d : count <&"$calls" && [[ $count =~ ^[0-9]+$ ]]; do
        args=()
        for ((index = 0; index < count; index++)); do
            _rs_take <&"$calls" && [[ $_rs_kind == s ]] || return 1
            args+=("$_rs_value")
        done
        result=$("$1" "${args[@]}"; printf x)   # x: its trailing newlines kept (the tests' $(...) drops them)
        _rs_out=
        _rs_put "${result%x}"
        _rs_out+="l${#args[@]}:"
        for result in "${args[@]}"; do _rs_put "$result"; done
        printf '\0R%s' "$_rs_out" >&"$replies" || return 1
    done
}
_rs_serve @@entry@@
exit
