@@codec@@
struct reward_split_stub_ {
static:
    import std.traits : ParameterIdentifierTuple, Parameters, ParameterStorageClass, ParameterStorageClassTuple,
        ReturnType;
    import std.meta : allSatisfy;
    alias wire = reward_split_;

    void unsupported(string why) {
        wire.writeAll(2, "@@unsupported@@" ~ why ~ "\n");
        wire._Exit(1);
    }

    // `return call!fn(its parameters);`, the body of the stub fn
    string forwarded(alias fn)() {
        string names;
        foreach (name; ParameterIdentifierTuple!fn) names ~= name ~ ", ";
        return "return reward_split_stub_.call!(__traits(parent, {}))(" ~ names ~ ");";
    }

    // an argument after the call: assigned where fn takes it by ref or out, its elements copied back into an array
    // the caller shares with it, else dropped
    void back(ParameterStorageClass storage, T)(ref wire.Reader in_, ref T argument) {
        import std.traits : ForeachType, isDynamicArray, isMutable, Unqual;
        static if (storage & (ParameterStorageClass.ref_ | ParameterStorageClass.out_)) {
            argument = wire.get!(Unqual!T)(in_);
        } else static if (isDynamicArray!T && isMutable!(ForeachType!T)) {
            auto after = wire.get!(Unqual!T)(in_);
            auto shared_ = after.length < argument.length ? after.length : argument.length;
            argument[0 .. shared_] = after[0 .. shared_];
        } else {
            wire.skip(in_);
        }
    }

    // one call sent to the program (fd 3), its reply read back (fd 4)
    ReturnType!fn call(alias fn)(ref Parameters!fn arguments) {
        alias Result = ReturnType!fn;
        static if (!allSatisfy!(wire.crosses, Parameters!fn) || !(is(Result == void) || wire.crosses!Result)) {
            unsupported("a D type that does not cross: " ~ typeof(fn).stringof);
            assert(0);
        } else {
            import core.sys.posix.signal : signal, SIG_IGN, SIGPIPE;
            static wire.Reader replies = wire.Reader(4);
            signal(SIGPIPE, SIG_IGN);   // a program that ended: its pipe's error, not a signal
            string out_ = wire.counted('C', arguments.length);
            foreach (i, _; arguments) wire.put(out_, arguments[i]);
            wire.writeAll(3, out_);
            char tag = replies.next();
            if (tag == 'X') {
                auto name = wire.get!string(replies);
                throw wire.raised(name, wire.get!string(replies));
            }
            if (tag != 'R') throw new wire.Unreadable("the program's reply is not a value");
            static if (is(Result == void)) wire.skip(replies);
            else auto result = wire.get!Result(replies);
            replies.tag('l');
            if (replies.count() != arguments.length) throw new wire.Unreadable("the arguments after the call");
            foreach (i, _; arguments) back!(ParameterStorageClassTuple!fn[i])(replies, arguments[i]);
            static if (!is(Result == void)) return result;
        }
    }
}

@@head@@ {
    mixin(reward_split_stub_.forwarded!(__traits(parent, {})));
}
