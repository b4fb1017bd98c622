# gfortran builds the source ($0). The split's dispatcher (docs/guards.md, "Two processes") declares the function's
# arguments as the prompt declares its dummies, between two marker lines; made locals there: no intent, value,
# optional or contiguous, and an assumed length or shape becomes a deferred one, allocatable. (This text is a command
# template: no braces; and no colon followed by a slash, which the host's probe would read as a path.)
sed -i -e '/^!reward_split_locals_begin$/,/^!reward_split_locals_end$/s#,[ \t]*\(intent[ \t]*([^)]*)\|value\|optional\|contiguous\)##Ig' \
    -e '/^!reward_split_locals_begin$/,/^!reward_split_locals_end$/s#character[ \t]*([ \t]*\(len[ \t]*=[ \t]*\)\?\*[ \t]*)#character(len=:), allocatable#Ig' \
    -e '/^!reward_split_locals_begin$/,/^!reward_split_locals_end$/s#[ \t]*::\(.*([ \t]*:[ \t]*[,)]\)#, allocatable ::\1#' \
    -e '/^!reward_split_locals_begin$/,/^!reward_split_locals_end$/s#\(([ \t]*:[ \t]*[,)].*\)[ \t]*::#\1, allocatable ::#' \
    -e '/^!reward_split_locals_begin$/,/^!reward_split_locals_end$/s#\(allocatable.*\), allocatable#\1#Ig' \
    "$0" && exec gfortran -O2 -o main "$0"
