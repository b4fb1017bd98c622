    // The wire format (docs/guards.md, "Values across the pipe"), both sides' reader and writer, nested in the class
    // the prompt opens (names from global::, whatever either side declares). A value is written by what it is (a
    // subclass of a list, map, set or tuple as its items: none of its overrides cross) and read by the type the prompt
    // declares, into the BCL's own types only.
    internal static class RewardWire_ {
        static readonly global::System.Text.UTF8Encoding Utf8 = new global::System.Text.UTF8Encoding(false, true);
        static readonly global::System.Globalization.CultureInfo Invariant =
            global::System.Globalization.CultureInfo.InvariantCulture;
        // every integer width, each read back checked: a value that does not fit its declared type does not cross
        static readonly global::System.Collections.Generic.Dictionary<global::System.Type,
            global::System.Func<global::System.Numerics.BigInteger, object>> Integers =
            new global::System.Collections.Generic.Dictionary<global::System.Type,
                global::System.Func<global::System.Numerics.BigInteger, object>> {
                {typeof(long), n => (long) n}, {typeof(int), n => (int) n}, {typeof(short), n => (short) n},
                {typeof(sbyte), n => (sbyte) n}, {typeof(ulong), n => (ulong) n}, {typeof(uint), n => (uint) n},
                {typeof(ushort), n => (ushort) n}, {typeof(byte), n => (byte) n},
                {typeof(global::System.Numerics.BigInteger), n => n},
            };
        static readonly global::System.Type[] Scalars = {typeof(bool), typeof(char), typeof(string), typeof(float),
            typeof(double), typeof(object)};
        static readonly global::System.Type[] Tuples = {typeof(global::System.Tuple<>), typeof(global::System.Tuple<,>),
            typeof(global::System.Tuple<,,>), typeof(global::System.Tuple<,,,>), typeof(global::System.Tuple<,,,,>),
            typeof(global::System.Tuple<,,,,,>), typeof(global::System.Tuple<,,,,,,>)};
        static readonly global::System.Type[] ValueTuples = {typeof(global::System.ValueTuple<>),
            typeof(global::System.ValueTuple<,>), typeof(global::System.ValueTuple<,,>),
            typeof(global::System.ValueTuple<,,,>), typeof(global::System.ValueTuple<,,,,>),
            typeof(global::System.ValueTuple<,,,,,>), typeof(global::System.ValueTuple<,,,,,,>)};
        static global::System.IO.Stream calls, replies;

        // The tests' side: one call of the entry function, its result read back as `ret`, the arguments after it
        // copied into the tests' own.
        internal static object Call(global::System.Type[] parameters, global::System.Type ret, object[] args,
                                    string unsupported) {
            var call = new global::System.IO.MemoryStream();
            try {
                Check(ret);
                global::System.Array.ForEach(parameters, Check);
                Header(call, 'C', args.Length);
                foreach (object arg in args) Write(call, arg);
            } catch (global::System.NotSupportedException e) {   // the benchmark's types or values, not the program's
                global::System.Console.Error.WriteLine(unsupported + e.Message);
                global::System.Console.Error.Flush();
                global::System.Environment.Exit(1);
            }
            global::System.Exception raised;
            try {
                if (calls == null) {     // Mono opens no stream on a bare descriptor: the tests' own, by path
                    calls = new global::System.IO.FileStream("/proc/self/fd/3", global::System.IO.FileMode.Open,
                                                             global::System.IO.FileAccess.Write);
                    replies = new global::System.IO.BufferedStream(new global::System.IO.FileStream(
                        "/proc/self/fd/4", global::System.IO.FileMode.Open, global::System.IO.FileAccess.Read));
                }
                calls.Write(call.GetBuffer(), 0, (int) call.Length);
                calls.Flush();
                int tag = replies.ReadByte();
                if (tag == 'R') {
                    object result = Read(replies, replies.ReadByte(), ret, true);
                    if (replies.ReadByte() != 'l' || Count(replies, ':') != args.Length) throw NotAValue("");
                    for (int i = 0; i < args.Length; i++) {
                        CopyBack(args[i], Read(replies, replies.ReadByte(), parameters[i], true));
                    }
                    return result;
                }
                if (tag != 'X') throw tag < 0 ? Ended() : NotAValue("");
                var name = (string) Read(replies, replies.ReadByte(), typeof(string), true);
                raised = Raised(name, (string) Read(replies, replies.ReadByte(), typeof(string), true));
            } catch (global::System.IO.IOException) {
                throw Ended();
            }
            throw raised;
        }

        // What the function threw, as the BCL's exception of that name where there is one.
        static global::System.Exception Raised(string name, string message) {
            foreach (var assembly in new[] {typeof(object).Assembly, typeof(global::System.Uri).Assembly,
                                            typeof(global::System.Linq.Enumerable).Assembly}) {
                global::System.Type type = assembly.GetType(name);
                var made = type == null || !typeof(global::System.Exception).IsAssignableFrom(type) ? null
                    : type.GetConstructor(new[] {typeof(string)});
                if (made != null) return (global::System.Exception) made.Invoke(new object[] {message});
            }
            return new global::System.Exception("the function threw " + name + ": " + message);
        }

        static global::System.Exception Ended() {
            return Broken("the program ended during a call");
        }

        static global::System.Exception NotAValue(string why) {
            return Broken("the program's reply is not a value" + why);
        }

        // The pipe broken (the other side ended, or wrote what is no value): this side ends, with no exception that
        // the tests could catch as the function's.
        static global::System.Exception Broken(string why) {
            global::System.Console.Error.WriteLine(why);
            global::System.Console.Error.Flush();
            global::System.Environment.Exit(1);
            return null;
        }

        // an argument the function changed: its new items in the tests' own array or collection
        static void CopyBack(object arg, object now) {
            if (arg == null || now == null || now.Equals(arg)) return;
            var array = arg as global::System.Array;
            if (array != null) {
                var items = (global::System.Array) now;
                if (items.Length == array.Length) global::System.Array.Copy(items, array, items.Length);
                return;
            }
            foreach (global::System.Type face in arg.GetType().GetInterfaces()) {
                if (face.IsGenericType
                        && face.GetGenericTypeDefinition() == typeof(global::System.Collections.Generic.ICollection<>)
                        && !(bool) face.GetProperty("IsReadOnly").GetValue(arg)) {
                    face.GetMethod("Clear").Invoke(arg, null);
                    foreach (object item in (global::System.Collections.IEnumerable) now) {
                        face.GetMethod("Add").Invoke(arg, new[] {item});
                    }
                    return;
                }
            }
        }

        // The program's side: calls read from fd 0, the entry called, one reply each on fd 1.
        internal static void Serve(global::System.Type[] parameters, global::System.Func<object[], object> entry) {
            var input = new global::System.IO.BufferedStream(global::System.Console.OpenStandardInput());
            var output = global::System.Console.OpenStandardOutput();
            // what the program prints goes to stderr, never among the replies, and what it reads is not the calls
            global::System.Console.SetOut(global::System.Console.Error);
            global::System.Console.SetIn(global::System.IO.TextReader.Null);
            while (input.ReadByte() == 'C') {
                var args = new object[Count(input, ':')];
                for (int i = 0; i < args.Length; i++) {
                    args[i] = Read(input, input.ReadByte(), i < parameters.Length ? parameters[i] : typeof(object),
                                   false);
                }
                var reply = new global::System.IO.MemoryStream();
                try {
                    reply.WriteByte((byte) 'R');
                    Write(reply, entry(args));
                    Header(reply, 'l', args.Length);
                    foreach (object arg in args) Write(reply, arg);
                } catch (global::System.Exception thrown) {
                    global::System.Type known = thrown.GetType();
                    while (known.Assembly == typeof(RewardWire_).Assembly) known = known.BaseType;
                    reply.SetLength(0);
                    reply.WriteByte((byte) 'X');
                    Bytes(reply, 's', known.FullName);
                    Bytes(reply, 's', thrown.Message ?? "");
                }
                output.Write(reply.GetBuffer(), 0, (int) reply.Length);
                output.Flush();
            }
        }

        // A declared type the wire carries; else NotSupportedException.
        static void Check(global::System.Type type) {
            if (global::System.Array.IndexOf(Scalars, type) >= 0 || Integers.ContainsKey(type)) return;
            global::System.Type under = global::System.Nullable.GetUnderlyingType(type);
            if (under != null) {
                Check(under);
            } else if (type.IsArray && type.GetArrayRank() == 1) {
                Check(type.GetElementType());
            } else if (type.IsGenericType && (Made(type, 'l', true) != null || Made(type, 'e', true) != null
                                              || Made(type, 'm', true) != null || IsTuple(type))) {
                global::System.Array.ForEach(type.GetGenericArguments(), Check);
            } else {
                throw new global::System.NotSupportedException("a " + type + " does not cross to the program");
            }
        }

        static bool IsTuple(global::System.Type type) {
            return type.IsGenericType && (global::System.Array.IndexOf(Tuples, type.GetGenericTypeDefinition()) >= 0
                || global::System.Array.IndexOf(ValueTuples, type.GetGenericTypeDefinition()) >= 0);
        }

        // The BCL's class that a list ('l'), set ('e') or map ('m') of `target` is read into (the tests' side: the
        // one compared by its contents), or null where it is no such `target`.
        static global::System.Type Made(global::System.Type target, char tag, bool structural) {
            int arity = tag == 'm' ? 2 : 1;
            global::System.Type[] items = target == typeof(object) ? (tag == 'm' ? new[] {target, target} : new[] {target})
                : target.IsGenericType && target.GetGenericArguments().Length == arity ? target.GetGenericArguments()
                : null;
            if (items == null) return null;
            global::System.Type open = tag == 'l' ? (structural ? typeof(RewardList_<>)
                                                                : typeof(global::System.Collections.Generic.List<>))
                : tag == 'e' ? (structural ? typeof(RewardSet_<>)
                                           : typeof(global::System.Collections.Generic.HashSet<>))
                : (structural ? typeof(RewardDictionary_<,>)
                              : typeof(global::System.Collections.Generic.Dictionary<,>));
            global::System.Type made = open.MakeGenericType(items);
            return target.IsAssignableFrom(made) ? made : null;
        }

        static void Write(global::System.IO.Stream output, object value) {
            if (value == null) {
                output.WriteByte((byte) 'N');
            } else if (value is bool) {
                output.WriteByte((byte) ((bool) value ? 'T' : 'F'));
            } else if (value is string) {
                Bytes(output, 's', (string) value);
            } else if (value is char) {
                Bytes(output, 'c', value.ToString());
            } else if (value is float || value is double) {
                double bits = value is float ? (double) (float) value : (double) value;
                Text(output, "d" + global::System.BitConverter.DoubleToInt64Bits(bits).ToString("x16", Invariant));
            } else if (Integers.ContainsKey(value.GetType())) {
                Text(output, "i" + ((global::System.IFormattable) value).ToString(null, Invariant) + ";");
            } else if (value is global::System.Collections.IDictionary) {
                var map = (global::System.Collections.IDictionary) value;
                var pairs = new global::System.Collections.Generic.List<global::System.Collections.DictionaryEntry>();
                foreach (global::System.Collections.DictionaryEntry pair in map) pairs.Add(pair);
                Header(output, 'm', pairs.Count);
                foreach (var pair in pairs) {
                    Write(output, pair.Key);
                    Write(output, pair.Value);
                }
            } else if (value is global::System.Runtime.CompilerServices.ITuple) {
                var tuple = (global::System.Runtime.CompilerServices.ITuple) value;
                Header(output, 't', tuple.Length);
                for (int i = 0; i < tuple.Length; i++) Write(output, tuple[i]);
            } else if (value is global::System.Collections.IEnumerable) {
                var items = new global::System.Collections.Generic.List<object>();
                foreach (object item in (global::System.Collections.IEnumerable) value) items.Add(item);
                bool set = global::System.Array.Exists(value.GetType().GetInterfaces(), face => face.IsGenericType
                    && face.GetGenericTypeDefinition() == typeof(global::System.Collections.Generic.ISet<>));
                Header(output, set ? 'e' : 'l', items.Count);
                foreach (object item in items) Write(output, item);
            } else {
                throw new global::System.NotSupportedException("a " + value.GetType() + " does not cross");
            }
        }

        static void Header(global::System.IO.Stream output, char tag, int count) {
            Text(output, tag + count.ToString(Invariant) + ":");
        }

        static void Bytes(global::System.IO.Stream output, char tag, string value) {
            byte[] data;
            try {
                data = Utf8.GetBytes(value);
            } catch (global::System.Text.EncoderFallbackException) {
                throw new global::System.NotSupportedException("a string with a lone surrogate does not cross");
            }
            Header(output, tag, data.Length);
            output.Write(data, 0, data.Length);
        }

        static void Text(global::System.IO.Stream output, string ascii) {
            byte[] data = global::System.Text.Encoding.ASCII.GetBytes(ascii);
            output.Write(data, 0, data.Length);
        }

        // One value whose tag has been read, as `target` declares it; `structural`: lists, sets and maps that compare
        // by their contents (the tests' side).
        static object Read(global::System.IO.Stream input, int tag, global::System.Type target, bool structural) {
            global::System.Type under = global::System.Nullable.GetUnderlyingType(target);
            if (under != null) return tag == 'N' || tag == 'U' ? null : Read(input, tag, under, structural);
            bool any = target == typeof(object);
            switch (tag) {
                case 'N': case 'U':
                    if (!target.IsValueType) return null;
                    break;
                case 'T': case 'F':
                    if (any || target == typeof(bool)) return tag == 'T';
                    break;
                case 'i': {
                    string digits = Until(input, ';');
                    global::System.Numerics.BigInteger n;
                    if (!global::System.Numerics.BigInteger.TryParse(digits,
                            global::System.Globalization.NumberStyles.AllowLeadingSign, Invariant, out n)) {
                        throw NotAValue(": " + digits + " is no integer");
                    }
                    if (any) target = n >= long.MinValue && n <= long.MaxValue ? typeof(long)
                                                                                : typeof(global::System.Numerics.BigInteger);
                    global::System.Func<global::System.Numerics.BigInteger, object> fit;
                    if (!Integers.TryGetValue(target, out fit)) break;
                    try {
                        return fit(n);
                    } catch (global::System.OverflowException) {
                        throw NotAValue(": " + digits + " is no " + target);
                    }
                }
                case 'd': {
                    string hex = Text(Exactly(input, 16));
                    long bits;
                    if (!long.TryParse(hex, global::System.Globalization.NumberStyles.AllowHexSpecifier, Invariant,
                                       out bits)) {
                        throw NotAValue(": a float that is not 16 hex digits");
                    }
                    double value = global::System.BitConverter.Int64BitsToDouble(bits);
                    if (target == typeof(double)) return value;
                    if (any || target == typeof(float)) return (float) value;   // MultiPL-E's C# floats are float
                    break;
                }
                case 's': case 'c': {
                    string text;
                    try {
                        text = Utf8.GetString(Exactly(input, Count(input, ':')));
                    } catch (global::System.ArgumentException) {
                        throw NotAValue(": text that is not UTF-8");
                    }
                    if (tag == 's' && (any || target == typeof(string))) return text;
                    if (tag == 'c' && (any || target == typeof(char)) && text.Length == 1) return text[0];
                    break;
                }
                case 'l': case 'e': case 'm': {
                    if (tag == 'l' && target.IsArray && target.GetArrayRank() == 1) {
                        global::System.Array array = global::System.Array.CreateInstance(target.GetElementType(),
                                                                                         Count(input, ':'));
                        for (int i = 0; i < array.Length; i++) {
                            array.SetValue(Read(input, input.ReadByte(), target.GetElementType(), structural), i);
                        }
                        return array;
                    }
                    global::System.Type made = Made(target, (char) tag, structural);
                    if (made == null) break;
                    object items = global::System.Activator.CreateInstance(made);
                    global::System.Type[] kinds = made.GetGenericArguments();
                    global::System.Reflection.MethodInfo add = made.GetMethod("Add", kinds);
                    int count = Count(input, ':');
                    for (int i = 0; i < count; i++) {
                        var pair = new object[kinds.Length];
                        for (int k = 0; k < kinds.Length; k++) pair[k] = Read(input, input.ReadByte(), kinds[k], structural);
                        try {
                            add.Invoke(items, pair);
                        } catch (global::System.Reflection.TargetInvocationException) {    // a key twice, a null key
                            throw NotAValue(": a map whose keys are not distinct");
                        }
                    }
                    return items;
                }
                case 't': {
                    int count = Count(input, ':');
                    global::System.Type made = any && count >= 1 && count <= Tuples.Length
                        ? Tuples[count - 1].MakeGenericType(global::System.Linq.Enumerable.ToArray(
                            global::System.Linq.Enumerable.Repeat(target, count)))
                        : IsTuple(target) && target.GetGenericArguments().Length == count ? target : null;
                    if (made == null) break;
                    global::System.Type[] kinds = made.GetGenericArguments();
                    var items = new object[count];
                    for (int i = 0; i < count; i++) items[i] = Read(input, input.ReadByte(), kinds[i], structural);
                    return global::System.Activator.CreateInstance(made, items);
                }
                case -1:
                    throw Ended();
                default:
                    throw NotAValue(": '" + (char) tag + "' is no tag of the wire format");
            }
            throw NotAValue(": a value tagged '" + (char) tag + "' where the declared type is " + target);
        }

        static string Text(byte[] ascii) {
            return global::System.Text.Encoding.ASCII.GetString(ascii);
        }

        static string Until(global::System.IO.Stream input, char end) {
            var digits = new global::System.Text.StringBuilder();
            for (int c = input.ReadByte(); c != end; c = input.ReadByte()) {
                if (c < 0) throw Ended();
                if (digits.Length > 100000) throw NotAValue(": a number without its end");
                digits.Append((char) c);
            }
            return digits.ToString();
        }

        static int Count(global::System.IO.Stream input, char end) {
            string digits = Until(input, end);
            int count;
            if (!int.TryParse(digits, global::System.Globalization.NumberStyles.None, Invariant, out count)) {
                throw NotAValue(": " + digits + " is no count");
            }
            return count;
        }

        static byte[] Exactly(global::System.IO.Stream input, int count) {
            var data = new byte[count];
            for (int at = 0; at < count;) {
                int got = input.Read(data, at, count - at);
                if (got <= 0) throw Ended();
                at += got;
            }
            return data;
        }
    }

    // What the tests' side reads a list, a set or a map into: the BCL's own class, whose Equals compares contents.
    // MultiPL-E's tests compare these with Equals, reference equality for List<T>, HashSet<T> and Dictionary<K,V>, so
    // a right function failed in MultiPL-E's own judge (docs/grading.md); the result is Equals' receiver in its tests
    // (`F(...).Equals(expected)`, and a tuple's items through Tuple's Equals).
    internal sealed class RewardList_<T> : global::System.Collections.Generic.List<T> {
        public override bool Equals(object other) {
            var items = other as global::System.Collections.Generic.List<T>;
            if (items == null || items.Count != Count) return false;
            for (int i = 0; i < Count; i++) {
                if (!global::System.Collections.Generic.EqualityComparer<T>.Default.Equals(this[i], items[i])) return false;
            }
            return true;
        }

        public override int GetHashCode() {
            int hash = Count;
            foreach (T item in this) {
                hash = hash * 31 + global::System.Collections.Generic.EqualityComparer<T>.Default.GetHashCode(item);
            }
            return hash;
        }
    }

    internal sealed class RewardSet_<T> : global::System.Collections.Generic.HashSet<T> {
        public override bool Equals(object other) {
            var items = other as global::System.Collections.Generic.HashSet<T>;
            return items != null && items.Count == Count && SetEquals(items);
        }

        public override int GetHashCode() {
            int hash = Count;
            foreach (T item in this) hash += global::System.Collections.Generic.EqualityComparer<T>.Default.GetHashCode(item);
            return hash;
        }
    }

    internal sealed class RewardDictionary_<K, V> : global::System.Collections.Generic.Dictionary<K, V> {
        public override bool Equals(object other) {
            var map = other as global::System.Collections.Generic.Dictionary<K, V>;
            if (map == null || map.Count != Count) return false;
            foreach (var pair in this) {
                V value;
                if (!map.TryGetValue(pair.Key, out value)
                        || !global::System.Collections.Generic.EqualityComparer<V>.Default.Equals(pair.Value, value)) {
                    return false;
                }
            }
            return true;
        }

        public override int GetHashCode() {
            int hash = Count;
            foreach (var pair in this) {
                hash += global::System.Collections.Generic.EqualityComparer<K>.Default.GetHashCode(pair.Key)
                    ^ global::System.Collections.Generic.EqualityComparer<V>.Default.GetHashCode(pair.Value);
            }
            return hash;
        }
    }
