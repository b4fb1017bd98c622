# MultiPL-E's Go programs are test files (`package x_test` + TestXxx); stdin programs are `package main`.
# $0 is the source file.
if grep -q '^package .*_test' "$0"; then
    mv "$0" main_test.go && exec go test -c -vet=off -o main main_test.go
else
    exec go build -o main "$0"
fi
