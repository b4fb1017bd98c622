# A function-style program and its tests as two files (language.toml's first harness, docs/guards.md). $0 is the
# program's source (the prompt and the completion, in the root package), tests.kt (the harness's tests_file) the tests
# in a package of their own that imports the prompt's function alone, so that no other name the program declares (an
# `assert`, an `arrayListOf`, an `object kotlin`) stands in for the standard library's in the tests; "$@" the flags
# every compile gets first (the class archive's). The jar's main is the tests'.
kotlinc "$@" -J-XX:TieredStopAtLevel=1 "$0" tests.kt -include-runtime -d main.jar
