# The wire format (docs/guards.md, "Values across the pipe"), both sides' reader and writer: data only, never code.
# Bash's values are strings; lengths count bytes (LC_ALL=C).

# $1's encoding as a string, appended to the variable _rs_out
_rs_put() {
    local LC_ALL=C
    _rs_out+="s${#1}:$1"
}

# one value read from stdin: a string's (or character's, or bytes') text in _rs_value, the kind of value in
# _rs_kind (s, or the tag of any other value, which it reads to its end); status 1 at the end of the input or on
# what is no value
_rs_take() {
    local LC_ALL=C IFS= tag count item
    read -r -N 1 tag || return 1
    _rs_kind=$tag _rs_value=
    case $tag in
        N | U | T | F) return 0 ;;
        i) read -r -d ';' count && [[ $count =~ ^-?[0-9]+$ ]]; return ;;
        d) read -r -N 16 count && [[ $count =~ ^[0-9a-f]{16}$ ]]; return ;;
    esac
    read -r -d : count && [[ $count =~ ^[0-9]+$ ]] || return 1
    case $tag in
        s | c | y)
            _rs_kind=s
            ((count == 0)) || { read -r -N "$count" _rs_value && ((${#_rs_value} == count)); } ;;
        l | t | e | m)
            [[ $tag == m ]] && count=$((2 * count))
            for ((item = 0; item < count; item++)); do _rs_take || return 1; done
            _rs_kind=$tag ;;
        *) return 1 ;;
    esac
}
