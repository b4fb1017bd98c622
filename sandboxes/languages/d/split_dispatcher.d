@@codec@@
struct reward_split_dispatcher_ {
static:
    import core.sys.posix.unistd : dup, dup2;
    import std.meta : allSatisfy, staticMap;
    import std.traits : Parameters, ReturnType, Unqual;
    alias wire = reward_split_;

    __gshared int replies = -1;

    string failure(string name, string message) {
        return 'X' ~ wire.counted('s', name.length) ~ name ~ wire.counted('s', message.length) ~ message;
    }

    // the nearest of the exceptions that cross by name, up from the class the function threw
    string named(Throwable raised) {
        for (auto kind = typeid(raised); kind !is null; kind = kind.base) {
            switch (kind.name) {
                case "object.Exception", "object.Error", "core.exception.RangeError", "core.exception.AssertError",
                        "std.conv.ConvException":
                    return kind.name;
                default:
            }
        }
        return "object.Throwable";
    }

    // the calls read from stdin, each answered on the replies: its result and its arguments after it
    int serve(alias fn)() {
        import std.stdio : stdout;
        alias Result = ReturnType!fn;
        auto calls = new wire.Reader(0);
        while (calls.peek() == 'C') {
            calls.next();
            string reply;
            try {
                static if (!allSatisfy!(wire.crosses, Parameters!fn)
                        || !(is(Result == void) || wire.crosses!Result)) {
                    throw new Exception("a D type that does not cross");
                } else {
                    staticMap!(Unqual, Parameters!fn) arguments;
                    if (calls.count() != arguments.length) throw new Exception("another number of arguments");
                    // by index: gdc 12 assigns a bool through a tuple's `ref` loop variable to a copy
                    foreach (i, Argument; typeof(arguments)) arguments[i] = wire.get!Argument(*calls);
                    reply = "R";
                    static if (is(Result == void)) {
                        fn(arguments);
                        reply ~= 'N';
                    } else {
                        wire.put(reply, fn(arguments));
                    }
                    reply ~= wire.counted('l', arguments.length);
                    foreach (i, _; arguments) wire.put(reply, arguments[i]);
                }
            } catch (Throwable raised) {
                reply = failure(named(raised), raised.msg);
            }
            stdout.flush();
            wire.writeAll(replies, reply);
        }
        return 0;
    }
}

// before any of the program's code (its module constructors too): what it prints goes to stderr, never among the
// replies
pragma(crt_constructor) extern (C) void reward_split_move_stdout_() {
    reward_split_dispatcher_.replies = reward_split_dispatcher_.dup(1);
    reward_split_dispatcher_.dup2(2, 1);
}

// the program's own unittest blocks do not run: the dispatcher's main does
shared static this() {
    import core.runtime : Runtime, UnitTestResult;
    Runtime.extendedModuleUnitTester = () => UnitTestResult(0, 0, true, false);
}

int main() { return reward_split_dispatcher_.serve!(@@entry@@)(); }
