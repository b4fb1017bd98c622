# The trusted loader that runs a function-style bash program and then its tests (docs/guards.md).
#
# This file is the run's source file ($0), so a program that reads its own script finds neither the tests nor the
# end-of-tests marker: both arrive on stdin (graders/guarded.prepare: a line "marker, prompt length, completion
# length" in UTF-8 bytes, then prompt, completion and tests), read to the end before the program runs (it sees an
# empty stdin, as in MultiPL-E). What this loader keeps is readonly: the program cannot change the tests it will run.
# The program (prompt, completion, and the brace MultiPL-E's tests begin with) runs at the top level, sourced from
# its own text (its lines numbered as in the one-file program); its functions stay for the tests. Then the shell is
# made trustworthy again before the tests are parsed: POSIX mode, turned on by an assignment (no command the program
# could have replaced), makes the special builtins (unset, set, eval, trap, exit...) win over functions; with them,
# every function named like a builtin goes (but the prompt's own), the builtins come back (`enable`), the options (set
# -o, shopt) are as they were before the program, aliases and traps go, IFS is the default. A program that keeps the
# shell from being made so (a readonly POSIXLY_CORRECT, IFS or function) gets no marker. The tests are then parsed and
# run in bash's own mode, numbered on from the program's lines, and the marker goes to stderr only when they end.
# All of it is one brace group, parsed before the program runs: no alias of the program reaches it.
{
  LC_ALL=C IFS=' ' read -r __reward_marker __reward_length __reward_completion_length
  __reward_locale=${LC_ALL-unset}
  LC_ALL=C
  IFS= read -r -N $((__reward_length + __reward_completion_length)) __reward_program
  IFS= read -r -d '' __reward_tests
  if [[ $__reward_locale == unset ]]; then unset LC_ALL; else LC_ALL=$__reward_locale; fi
  __reward_keep=
  [[ ${__reward_program::__reward_length} =~ ([A-Za-z_][A-Za-z0-9_]*)[[:space:]]*\(\)[[:space:]]*\{[[:space:]]*$ ]] &&
    __reward_keep=${BASH_REMATCH[1]}
  __reward_program+=$'\n'
  if [[ $__reward_tests =~ ^[[:space:]]*\} ]]; then
    __reward_program+=${BASH_REMATCH[0]}
    __reward_tests=${__reward_tests:${#BASH_REMATCH[0]}}
  fi
  __reward_tests=${__reward_program//[^$'\n']/}$__reward_tests
  __reward_shadows=()
  for __reward_builtin in $(compgen -b); do
    [[ $__reward_builtin == "$__reward_keep" ]] || __reward_shadows+=("$__reward_builtin")
  done
  readonly __reward_marker __reward_program __reward_tests __reward_shadows __reward_shellopts=$SHELLOPTS \
    __reward_bashopts=$BASHOPTS
  unset __reward_locale __reward_length __reward_completion_length __reward_keep __reward_builtin

  source /dev/stdin <<< "$__reward_program"

  POSIXLY_CORRECT=y
  trap - DEBUG ERR
  IFS=$' \t\n'
  if [[ -o posix && $IFS == $' \t\n' ]] && unset -f "${__reward_shadows[@]}" && enable "${__reward_shadows[@]}"; then
    for __reward_option in ${SHELLOPTS//:/ }; do
      [[ $__reward_option == posix || :$__reward_shellopts: == *:$__reward_option:* ]] || set +o "$__reward_option"
    done
    for __reward_option in ${__reward_shellopts//:/ }; do set -o "$__reward_option"; done
    for __reward_option in ${BASHOPTS//:/ }; do
      [[ :$__reward_bashopts: == *:$__reward_option:* ]] || shopt -u "$__reward_option"
    done
    for __reward_option in ${__reward_bashopts//:/ }; do shopt -s "$__reward_option"; done
    unalias -a
    trap - EXIT RETURN {1..64}
    set +o posix
    unset POSIXLY_CORRECT __reward_option
    source /dev/stdin <<< "$__reward_tests"
    case $? in
      0) printf '%s\n' "$__reward_marker" >&2 ;;
      *) exit 1 ;;
    esac
  else
    exit 1
  fi
}
