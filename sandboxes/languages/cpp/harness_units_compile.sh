# A function-style program and its tests as two translation units (language.toml's first harness, docs/guards.md).
# $0 is the program's source (the prompt, the completion), tests.cpp (the harness's tests_file) the tests' (the
# prompt's declarations, the tests' own assert, the tests, the marker); "$@" the flags every compile gets first (a
# precompiled header's -I). The tests compile first, and their source is gone before the program compiles: the
# program cannot include it. The program's object then keeps global only what the tests' unit declared protected (the
# prompt's function: harness_units_declaration.cpp), so that no other symbol of the program (a C library function, an
# explicit specialisation of a template the tests instantiate) can stand in for one the tests use; its section groups
# (COMDAT) are dissolved as well, so that its inline and template copies stay its own. It keeps main too: a program
# that defines its own fails to link, as it fails to compile in one file. Once linked, the sources and objects are
# gone: the run sees the binary alone.
set -e
g++ "$@" -O2 -std=c++17 -c -o tests.o tests.cpp
rm tests.cpp
g++ "$@" -O2 -std=c++17 -c -o program.o "$0"
echo main > exported
readelf -sW tests.o | sed -n 's/^.* PROTECTED *UND \([^ ]*\)$/\1/p' >> exported
objcopy --remove-section=.group --keep-global-symbols=exported program.o
g++ -o main tests.o program.o
rm "$0" tests.o program.o exported
