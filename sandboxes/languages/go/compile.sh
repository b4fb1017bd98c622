# MultiPL-E's Go programs are test files (`package x_test` + TestXxx); stdin programs are `package main`.
# $0 is the source file. A test file's source is gone once compiled (the run sees the binary alone).
# A split's side (split_stub.go, split_dispatcher.go) carries the wire format's code between the lines $begin and
# $end: it becomes a file of its own, as Go's imports are a file's. Its package is the one its first line names, and
# the source's becomes the same (the program's side is a command); without one, the source's. An import of the
# prompt's that only the other side used (the tests' "testing", "fmt") is made blank once the compiler names it.
begin='^// ---- split_wire.go ----$'
end='^// ---- end of split_wire.go ----$'
wire=
if grep -q "$begin" "$0"; then
    sed -e "1,\\#$begin#d" -e "\\#$end#,\$d" "$0" > split_wire.go
    sed -i "\\#$begin#,\\#$end#d" "$0"
    if head -n 1 split_wire.go | grep -q '^package '; then
        sed -i "0,/^package .*/s//$(head -n 1 split_wire.go)/" "$0"
    else
        sed -i "1i $(grep -m 1 '^package ' "$0")" split_wire.go
    fi
    wire=split_wire.go
fi
if grep -q '^package .*_test' "$0"; then
    mv "$0" main_test.go
    set -- main_test.go
    if [ -n "$wire" ]; then
        mv split_wire.go split_wire_test.go
        set -- main_test.go split_wire_test.go
    fi
    build="go test -c -vet=off -o main"
else
    set -- "$0" $wire
    build="go build -o main"
fi
if [ -z "$wire" ]; then
    $build "$@"
elif $build "$@" 2> errors; then
    true
elif grep -q ': imported and not used: "' errors; then
    sed -n 's/^\.\/\([^:]*\):\([0-9]*\):[0-9]*: imported and not used: \("[^"]*"\)$/\1 \2 \3/p' errors |
        while read -r file line path; do sed -i "$line s|$path|_ $path|" "$file"; done
    $build "$@"
else
    cat errors >&2
    false
fi
built=$?
rm -f main_test.go split_wire_test.go errors
exit $built
