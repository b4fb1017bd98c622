// The wire format (docs/guards.md, "Values across the pipe"), both sides' reader and writer: each value is read into
// the type the prompt declares (D's own: integers of every width and std.bigint's BigInt, float, double and real as
// binary64, bool, the character and string types, arrays, std.typecons' Tuple and Nullable, associative arrays),
// never one the program defines. A type with no codec here (a struct or class of the prompt's) cannot cross: the tests'
// side says so before it sends anything.
struct reward_split_ {
static:
    import core.stdc.errno : EINTR, errno;
    import core.stdc.stdlib : _Exit;
    import core.sys.posix.unistd : read, write;
    import std.conv : ConvException, to;
    import std.traits : ForeachType, isAssociativeArray, isDynamicArray, isFloatingPoint, isIntegral, isSomeChar,
        isSomeString, isStaticArray, KeyType, Unqual, ValueType;
    import std.typecons : isTuple, Nullable;

    class Unreadable : Exception {
        this(string why) { super(why); }
    }

    struct Reader {
        int fd;
        ubyte[1 << 16] buffer;
        size_t at, end;

        int peek() {
            if (at == end) {
                ptrdiff_t got;
                do got = read(fd, buffer.ptr, buffer.length);
                while (got < 0 && errno == EINTR);
                if (got <= 0) return -1;
                at = 0;
                end = got;
            }
            return buffer[at];
        }

        char next() {
            int c = peek();
            if (c < 0) throw new Unreadable("the program ended during a call");
            ++at;
            return cast(char) c;
        }

        void tag(char expected) {
            if (next() != expected) throw new Unreadable("the reply is not a value of the declared type");
        }

        // the characters up to `stop`
        string until(char stop) {
            char[] text;
            for (char c = next(); c != stop; c = next()) text ~= c;
            return cast(string) text;
        }

        size_t count() {
            try return until(':').to!size_t;
            catch (ConvException) throw new Unreadable("not a count");
        }

        string bytes() {
            auto text = new char[count()];
            foreach (ref c; text) c = next();
            return cast(string) text;
        }
    }

    void writeAll(int fd, const(char)[] data) {
        while (data.length) {
            auto wrote = write(fd, data.ptr, data.length);
            if (wrote < 0 && errno == EINTR) continue;
            if (wrote <= 0) throw new Unreadable("the program ended during a call");
            data = data[wrote .. $];
        }
    }

    string counted(char tag, size_t count) { return tag ~ count.to!string ~ ':'; }

    enum isBigInt(T) = is(T == struct) && __traits(identifier, T) == "BigInt"
        && __traits(compiles, T.init.toDecimalString());

    // the types that cross, to any depth
    template crosses(T) {
        alias U = Unqual!T;
        static if (is(U == enum) || is(U == void*) || is(U == class) || is(U == interface))
            enum crosses = false;
        else static if (is(U == bool) || isSomeChar!U || isIntegral!U || isFloatingPoint!U || isSomeString!U
                || isBigInt!U || is(U == typeof(null)))
            enum crosses = true;
        else static if (isTuple!U) {
            import std.meta : allSatisfy;
            enum crosses = allSatisfy!(reward_split_.crosses, U.Types);
        } else static if (is(U == Nullable!V, V))
            enum crosses = crosses!V;
        else static if (isStaticArray!U || isDynamicArray!U)
            enum crosses = crosses!(ForeachType!U);
        else static if (isAssociativeArray!U)
            enum crosses = crosses!(KeyType!U) && crosses!(ValueType!U);
        else
            enum crosses = false;
    }

    void put(T)(ref string out_, auto ref T value) {
        alias U = Unqual!T;
        static if (is(U == bool)) out_ ~= value ? 'T' : 'F';
        else static if (is(U == typeof(null))) out_ ~= 'N';
        else static if (is(U == char)) out_ ~= counted('c', 1) ~ value;
        else static if (isSomeChar!U) {
            import std.utf : encode;
            char[4] units;
            auto length = encode(units, cast(dchar) value);
            out_ ~= counted('c', length) ~ units[0 .. length];
        } else static if (isIntegral!U) out_ ~= 'i' ~ value.to!string ~ ';';
        else static if (isBigInt!U) out_ ~= 'i' ~ value.toDecimalString() ~ ';';
        else static if (isFloatingPoint!U) {
            double wide = value;
            ulong bits = *cast(ulong*) &wide;
            char[16] hex;
            foreach_reverse (ref digit; hex) {
                digit = "0123456789abcdef"[bits & 15];
                bits >>= 4;
            }
            out_ ~= 'd' ~ hex[];
        } else static if (isSomeString!U) {
            auto text = value.to!string;
            out_ ~= counted('s', text.length) ~ text;
        } else static if (isTuple!U) {
            out_ ~= counted('t', U.Types.length);
            foreach (i, _; U.Types) put(out_, value[i]);
        } else static if (is(U == Nullable!V, V)) {
            if (value.isNull) out_ ~= 'N';
            else put(out_, value.get);
        } else static if (isStaticArray!U || isDynamicArray!U) {
            out_ ~= counted('l', value.length);
            foreach (ref item; value) put(out_, item);
        } else static if (isAssociativeArray!U) {
            out_ ~= counted('m', value.length);
            foreach (ref key, ref item; value) {
                put(out_, key);
                put(out_, item);
            }
        } else static assert(0, "a type that does not cross: " ~ T.stringof);
    }

    T get(T)(ref Reader in_) {
        alias U = Unqual!T;
        static if (is(U == bool)) {
            char tag = in_.next();
            if (tag != 'T' && tag != 'F') throw new Unreadable("not a boolean");
            return tag == 'T';
        } else static if (is(U == typeof(null))) {
            in_.tag('N');
            return null;
        } else static if (isSomeChar!U) {
            in_.tag('c');
            auto text = in_.bytes();
            static if (is(U == char)) {
                if (text.length != 1) throw new Unreadable("not a one-byte character");
                return text[0];
            } else {
                import std.utf : decode;
                size_t at = 0;
                dchar c = decode(text, at);
                if (at != text.length || c > U.max) throw new Unreadable("not one character of the declared type");
                return cast(T) c;
            }
        } else static if (isIntegral!U || isBigInt!U) {
            in_.tag('i');
            auto digits = in_.until(';');
            try {
                static if (isBigInt!U) {
                    import std.algorithm : all;
                    import std.ascii : isDigit;
                    auto magnitude = digits.length && digits[0] == '-' ? digits[1 .. $] : digits;
                    if (!magnitude.length || !magnitude.all!isDigit) throw new ConvException(digits);
                    return U(digits);
                } else return digits.to!U;
            } catch (ConvException) throw new Unreadable("a number that does not fit its declared type");
        } else static if (isFloatingPoint!U) {
            in_.tag('d');
            ulong bits = 0;
            foreach (_; 0 .. 16) {
                char c = in_.next();
                int digit = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
                if (digit < 0) throw new Unreadable("not a float's bits");
                bits = bits << 4 | digit;
            }
            return cast(T) *cast(double*) &bits;
        } else static if (isSomeString!U) {
            in_.tag('s');
            auto text = in_.bytes();
            static if (is(ForeachType!U : char)) return cast(T) text.dup;
            else return text.to!T;
        } else static if (isTuple!U) {
            in_.tag('t');
            if (in_.count() != U.Types.length) throw new Unreadable("a tuple of another size");
            U value;
            foreach (i, Item; U.Types) value[i] = get!Item(in_);
            return cast(T) value;
        } else static if (is(U == Nullable!V, V)) {
            U value;
            if (in_.peek() == 'N') in_.next();
            else value = get!V(in_);
            return cast(T) value;
        } else static if (isStaticArray!U) {
            in_.tag('l');
            if (in_.count() != U.length) throw new Unreadable("an array of another length");
            Unqual!(ForeachType!U)[U.length] items;
            foreach (ref item; items) item = get!(ForeachType!U)(in_);
            return cast(T) items;
        } else static if (isDynamicArray!U) {
            in_.tag('l');
            auto items = new Unqual!(ForeachType!U)[in_.count()];
            foreach (ref item; items) item = get!(ForeachType!U)(in_);
            return cast(T) items;
        } else static if (isAssociativeArray!U) {
            in_.tag('m');
            Unqual!(ValueType!U)[Unqual!(KeyType!U)] pairs;
            foreach (_; 0 .. in_.count()) {
                auto key = get!(KeyType!U)(in_);
                pairs[key] = get!(ValueType!U)(in_);
            }
            return cast(T) pairs;
        } else static assert(0, "a type that does not cross: " ~ T.stringof);
    }

    // one value of any shape read and dropped (an argument passed by value: its state after the call is not the
    // caller's)
    void skip(ref Reader in_, int depth = 0) {
        if (depth > 200) throw new Unreadable("a value nested too deep");
        char tag = in_.next();
        switch (tag) {
            case 'N', 'U', 'T', 'F': return;
            case 'i': in_.until(';'); return;
            case 'd': foreach (_; 0 .. 16) in_.next(); return;
            case 's', 'c', 'y': in_.bytes(); return;
            case 'l', 't', 'e', 'm':
                auto count = in_.count();
                foreach (_; 0 .. tag == 'm' ? 2 * count : count) skip(in_, depth + 1);
                return;
            default: throw new Unreadable("not a value of the wire format");
        }
    }

    // the exceptions that cross by name: D's own, each raised again on the tests' side as itself
    Throwable raised(string name, string message) {
        import core.exception : AssertError, RangeError;
        switch (name) {
            case "object.Exception": return new Exception(message);
            case "object.Error": return new Error(message);
            case "core.exception.RangeError": return new RangeError();
            case "core.exception.AssertError": return new AssertError(message);
            case "std.conv.ConvException": return new ConvException(message);
            default: return new Exception(name ~ ": " ~ message);
        }
    }
}
