# MultiPL-E's Go programs are test files (`package x_test` + TestXxx); stdin programs are `package main`.
# $0 is the source file. A test file's source is gone once compiled (the run sees the binary alone).
if grep -q '^package .*_test' "$0"; then
    mv "$0" main_test.go && go test -c -vet=off -o main main_test.go
    built=$?
    rm -f main_test.go
    exit $built
else
    exec go build -o main "$0"
fi
