    // The wire format (docs/guards.md, "Values across the pipe"), both sides' reader and writer: nested in the class
    // the prompt opens on the tests' side, a class of its own on the program's (split_unit.java). A value is read by
    // the type the prompt declares, into the JDK's and javatuples' own classes only, and written by that type too: a
    // value whose class does not fit it (an Integer in an ArrayList<Long>, which MultiPL-E's equals would tell apart)
    // does not cross.
    final class RewardWire_ {
        interface Entry {
            Object call(Object[] args) throws Throwable;
        }

        // a declared type: its simple name and its type arguments
        static final class Kind {
            final String name;
            final java.util.List<Kind> args = new java.util.ArrayList<>();

            Kind(String name) {
                this.name = name;
            }

            Kind arg(int index) {
                return index < args.size() ? args.get(index) : ANY;
            }
        }

        static final Kind ANY = new Kind("Object"), STRING = new Kind("String");
        static final java.util.List<String> TUPLES = java.util.List.of("Unit", "Pair", "Triplet", "Quartet", "Quintet",
            "Sextet", "Septet", "Octet", "Ennead", "Decade");
        static final java.util.Set<String> NAMES = java.util.Set.of("long", "Long", "int", "Integer", "double",
            "Double", "float", "Float", "boolean", "Boolean", "char", "Character", "String", "Object", "ArrayList",
            "List", "HashMap", "Map", "HashSet", "Set", "Optional");
        // the dispatcher's first reply bytes: what the program printed before them (class Problem's static
        // initializers run before the dispatcher's main) is skipped by the stub
        static final String READY = "\u0000split: ready\n";
        static java.io.OutputStream calls;
        static java.io.InputStream replies;

        // The tests' side: one call of the entry function, its result read back as `ret`.
        static Object call(String[] params, String ret, Object[] args, String unsupported) {
            java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
            Kind[] kinds = new Kind[params.length];
            Kind result = null;
            try {
                result = kind(ret);
                header(out, 'C', args.length);
                for (int i = 0; i < args.length; i++) {
                    kinds[i] = kind(params[i]);
                    write(out, args[i], kinds[i]);
                }
            } catch (RuntimeException e) {     // the benchmark's types or values, not the program's doing
                System.err.println(unsupported + e.getMessage());
                System.err.flush();
                Runtime.getRuntime().halt(1);
            }
            try {
                if (replies == null) {
                    opened();
                }
                calls.write(out.toByteArray());
                calls.flush();
                int tag = replies.read();
                if (tag == 'R') {
                    Object value = read(replies, replies.read(), result);
                    if (replies.read() != 'l' || size(replies, ':') != args.length) {
                        throw new IllegalStateException("the program's reply is not a value");
                    }
                    for (int i = 0; i < args.length; i++) {
                        copyBack(args[i], read(replies, replies.read(), kinds[i]));
                    }
                    return value;
                }
                if (tag == 'X') {
                    String name = (String) read(replies, replies.read(), STRING);
                    throw raised(name, (String) read(replies, replies.read(), STRING));
                }
                throw new IllegalStateException(tag < 0 ? "the program ended during a call"
                                                        : "the program's reply is not a value");
            } catch (java.io.IOException e) {
                throw new IllegalStateException("the program ended during a call", e);
            }
        }

        // fds 3 (calls) and 4 (replies), the replies past the dispatcher's READY
        static void opened() throws java.io.IOException {
            calls = new java.io.FileOutputStream(descriptor(3));
            java.io.InputStream in = new java.io.BufferedInputStream(new java.io.FileInputStream(descriptor(4)));
            for (int matched = 0; matched < READY.length(); ) {
                int c = in.read();
                if (c < 0) {
                    throw new java.io.EOFException("the program ended before it answered");
                }
                matched = c == READY.charAt(matched) ? matched + 1 : c == 0 ? 1 : 0;
            }
            replies = in;
        }

        // fd 3 or 4 of the tests: Java opens no descriptor by number, so the run command opens java.io to this field
        static java.io.FileDescriptor descriptor(int number) {
            try {
                java.io.FileDescriptor fd = new java.io.FileDescriptor();
                java.lang.reflect.Field field = java.io.FileDescriptor.class.getDeclaredField("fd");
                field.setAccessible(true);
                field.setInt(fd, number);
                return fd;
            } catch (ReflectiveOperationException e) {
                throw new IllegalStateException(e);
            }
        }

        // what the function threw, as the JDK's own unchecked class of that name where there is one
        static RuntimeException raised(String name, String message) {
            try {
                Class<?> type = Class.forName(name, false, null);     // the boot loader's: never a program's class
                if (RuntimeException.class.isAssignableFrom(type) || Error.class.isAssignableFrom(type)) {
                    Throwable thrown = (Throwable) type.getConstructor(String.class).newInstance(message);
                    if (thrown instanceof Error error) {
                        throw error;
                    }
                    return (RuntimeException) thrown;
                }
            } catch (ReflectiveOperationException | LinkageError e) {
                // no such class, or none made from a message: the generic error below
            }
            return new RuntimeException("the function threw " + name + ": " + message);
        }

        @SuppressWarnings({"unchecked", "rawtypes"})
        static void copyBack(Object arg, Object changed) {
            if (arg instanceof java.util.Collection items && changed instanceof java.util.Collection now
                    && !items.equals(now)) {
                items.clear();
                items.addAll(now);
            } else if (arg instanceof java.util.Map map && changed instanceof java.util.Map now && !map.equals(now)) {
                map.clear();
                map.putAll(now);
            }
        }

        // The program's side: calls read from fd 0, the entry called, one reply each on fd 1.
        static void serve(String[] params, String ret, Entry entry) throws java.io.IOException {
            java.io.InputStream in = new java.io.BufferedInputStream(
                new java.io.FileInputStream(java.io.FileDescriptor.in));
            java.io.OutputStream replies = new java.io.FileOutputStream(java.io.FileDescriptor.out);
            System.out.flush();            // what the initializers printed, before the READY that skips it
            System.setOut(System.err);     // what the program prints goes to stderr, never among the replies
            replies.write(READY.getBytes(java.nio.charset.StandardCharsets.US_ASCII));
            replies.flush();
            Kind result = kind(ret);
            Kind[] kinds = new Kind[params.length];
            for (int i = 0; i < params.length; i++) {
                kinds[i] = kind(params[i]);
            }
            while (in.read() == 'C') {
                Object[] args = new Object[size(in, ':')];
                for (int i = 0; i < args.length; i++) {
                    args[i] = read(in, in.read(), i < kinds.length ? kinds[i] : ANY);
                }
                java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
                try {
                    out.write('R');
                    write(out, entry.call(args), result);
                    header(out, 'l', args.length);
                    for (int i = 0; i < args.length; i++) {
                        write(out, args[i], kinds[i]);
                    }
                } catch (Throwable thrown) {
                    Class<?> known = thrown.getClass();
                    while (known.getClassLoader() != null) {
                        known = known.getSuperclass();
                    }
                    out.reset();
                    out.write('X');
                    write(out, known.getName(), STRING);
                    write(out, java.util.Objects.toString(thrown.getMessage(), ""), STRING);
                }
                replies.write(out.toByteArray());
                replies.flush();
            }
        }

        // "ArrayList<Pair<Long, Long>>" as a Kind; a type the wire cannot carry is refused here
        static Kind kind(String text) {
            StringBuilder stripped = new StringBuilder();     // no regex and no lambda: each costs a JVM's start
            for (int i = 0; i < text.length(); i++) {
                if (!Character.isWhitespace(text.charAt(i))) {
                    stripped.append(text.charAt(i));
                }
            }
            String type = stripped.toString();
            int[] at = {0};
            Kind kind = kind(type, at);
            if (at[0] != type.length()) {
                throw new IllegalArgumentException("the type " + text + " does not cross to the tests");
            }
            return kind;
        }

        static Kind kind(String type, int[] at) {
            int start = at[0];
            while (at[0] < type.length() && (Character.isJavaIdentifierPart(type.charAt(at[0]))
                                             || type.charAt(at[0]) == '.')) {
                at[0]++;
            }
            String name = type.substring(start, at[0]);
            Kind kind = new Kind(name.substring(name.lastIndexOf('.') + 1));
            if (!NAMES.contains(kind.name) && !TUPLES.contains(kind.name)) {
                throw new IllegalArgumentException("a " + name + " does not cross to the tests");
            }
            if (at[0] < type.length() && type.charAt(at[0]) == '<') {
                do {
                    at[0]++;
                    kind.args.add(kind(type, at));
                } while (at[0] < type.length() && type.charAt(at[0]) == ',');
                if (at[0] >= type.length() || type.charAt(at[0]++) != '>') {
                    throw new IllegalArgumentException("the type " + type + " does not cross to the tests");
                }
            }
            return kind;
        }

        // the Kind of a value typed Object: its own class's
        static Kind kindOf(Object value) {
            String name = value instanceof Long ? "Long" : value instanceof Integer ? "Integer"
                : value instanceof Double ? "Double" : value instanceof Float ? "Float"
                : value instanceof Boolean ? "Boolean" : value instanceof Character ? "Character"
                : value instanceof String ? "String" : value instanceof java.util.Optional ? "Optional"
                : value instanceof java.util.Map ? "Map" : value instanceof java.util.Set ? "Set"
                : value instanceof java.util.List ? "List"
                : value instanceof org.javatuples.Tuple tuple ? TUPLES.get(tuple.getSize() - 1) : null;
            if (name == null) {
                throw new ClassCastException("a " + value.getClass().getName() + " does not cross to the tests");
            }
            return new Kind(name);
        }

        static void write(java.io.ByteArrayOutputStream out, Object value, Kind kind) {
            if (kind.name.equals("Optional")) {
                java.util.Optional<?> optional = java.util.Objects.requireNonNull((java.util.Optional<?>) value);
                if (optional.isPresent()) {
                    write(out, optional.get(), kind.arg(0));
                } else {
                    out.write('N');
                }
                return;
            }
            if (value == null) {
                out.write('N');
                return;
            }
            switch (kind.name) {
                case "Object" -> write(out, value, kindOf(value));
                case "long", "Long" -> number(out, 'i', Long.toString((Long) value), ';');
                case "int", "Integer" -> number(out, 'i', Integer.toString((Integer) value), ';');
                case "double", "Double" -> bits(out, (Double) value);
                case "float", "Float" -> bits(out, (Float) value);
                case "boolean", "Boolean" -> out.write((Boolean) value ? 'T' : 'F');
                case "char", "Character" -> bytes(out, 'c', String.valueOf((char) (Character) value));
                case "String" -> bytes(out, 's', (String) value);
                case "ArrayList", "List" -> items(out, 'l', (java.util.List<?>) value, kind.arg(0));
                case "HashSet", "Set" -> items(out, 'e', (java.util.Set<?>) value, kind.arg(0));
                case "HashMap", "Map" -> {
                    java.util.Map<?, ?> map = (java.util.Map<?, ?>) value;
                    header(out, 'm', map.size());
                    for (java.util.Map.Entry<?, ?> pair : map.entrySet()) {
                        write(out, pair.getKey(), kind.arg(0));
                        write(out, pair.getValue(), kind.arg(1));
                    }
                }
                default -> {    // a javatuples tuple of its name's arity
                    org.javatuples.Tuple tuple = (org.javatuples.Tuple) value;
                    if (tuple.getSize() != TUPLES.indexOf(kind.name) + 1) {
                        throw new ClassCastException("a tuple of " + tuple.getSize() + " is no " + kind.name);
                    }
                    header(out, 't', tuple.getSize());
                    for (int i = 0; i < tuple.getSize(); i++) {
                        write(out, tuple.getValue(i), kind.arg(i));
                    }
                }
            }
        }

        static void items(java.io.ByteArrayOutputStream out, char tag, java.util.Collection<?> items, Kind kind) {
            header(out, tag, items.size());
            for (Object item : items) {
                write(out, item, kind);
            }
        }

        static void header(java.io.ByteArrayOutputStream out, char tag, int count) {
            number(out, tag, Integer.toString(count), ':');
        }

        static void bits(java.io.ByteArrayOutputStream out, double value) {
            String hex = Long.toHexString(Double.doubleToRawLongBits(value));
            out.write('d');
            text(out, "0".repeat(16 - hex.length()));
            text(out, hex);
        }

        // a tag, digits, an end: written piece by piece, since a JVM's first string concatenation costs it about 20 ms
        // of bootstrap (invokedynamic), a tenth of a small program's run
        static void number(java.io.ByteArrayOutputStream out, char tag, String digits, char end) {
            out.write(tag);
            text(out, digits);
            out.write(end);
        }

        static void bytes(java.io.ByteArrayOutputStream out, char tag, String value) {
            byte[] data = value.getBytes(java.nio.charset.StandardCharsets.UTF_8);
            header(out, tag, data.length);
            out.writeBytes(data);
        }

        static void text(java.io.ByteArrayOutputStream out, String ascii) {
            out.writeBytes(ascii.getBytes(java.nio.charset.StandardCharsets.US_ASCII));
        }

        // One value whose tag has been read, as `kind` declares it: the JDK's and javatuples' classes only.
        static Object read(java.io.InputStream in, int tag, Kind kind) throws java.io.IOException {
            String name = kind.name;
            if (name.equals("Optional")) {
                return tag == 'N' || tag == 'U' ? java.util.Optional.empty()
                                                : java.util.Optional.of(read(in, tag, kind.arg(0)));
            }
            boolean any = name.equals("Object");
            switch (tag) {
                case 'N', 'U' -> {
                    if (!Character.isUpperCase(name.charAt(0))) {
                        break;
                    }
                    return null;
                }
                case 'T', 'F' -> {
                    if (!any && !name.equalsIgnoreCase("boolean")) {
                        break;
                    }
                    return tag == 'T';
                }
                case 'i' -> {
                    String digits = until(in, ';');
                    try {
                        if (any || name.equalsIgnoreCase("long")) {
                            return Long.parseLong(digits);
                        }
                        if (name.equals("int") || name.equals("Integer")) {
                            return Integer.parseInt(digits);
                        }
                    } catch (NumberFormatException e) {
                        throw new IllegalStateException("the integer " + digits + " is no " + name);
                    }
                }
                case 'd' -> {
                    byte[] hex = exactly(in, 16);
                    double value;
                    try {
                        value = Double.longBitsToDouble(Long.parseUnsignedLong(new String(hex,
                            java.nio.charset.StandardCharsets.US_ASCII), 16));
                    } catch (NumberFormatException e) {
                        throw new IllegalStateException("a float that is not 16 hex digits");
                    }
                    if (name.equalsIgnoreCase("double")) {
                        return value;
                    }
                    if (any || name.equalsIgnoreCase("float")) {  // MultiPL-E's Java floats are float
                        return (float) value;
                    }
                }
                case 's', 'c' -> {
                    String text = new String(exactly(in, size(in, ':')), java.nio.charset.StandardCharsets.UTF_8);
                    if (tag == 's' && (any || name.equals("String"))) {
                        return text;
                    }
                    if (tag == 'c' && (any || name.equals("char") || name.equals("Character")) && text.length() == 1) {
                        return text.charAt(0);
                    }
                }
                case 'l', 'e' -> {
                    boolean list = tag == 'l';
                    if (any || (list ? name.equals("ArrayList") || name.equals("List")
                                     : name.equals("HashSet") || name.equals("Set"))) {
                        int count = size(in, ':');
                        java.util.Collection<Object> items = list ? new java.util.ArrayList<>()
                                                                  : new java.util.HashSet<>();
                        for (int i = 0; i < count; i++) {
                            items.add(read(in, in.read(), kind.arg(0)));
                        }
                        return items;
                    }
                }
                case 'm' -> {
                    if (any || name.equals("HashMap") || name.equals("Map")) {
                        int count = size(in, ':');
                        java.util.Map<Object, Object> map = new java.util.HashMap<>();
                        for (int i = 0; i < count; i++) {
                            Object key = read(in, in.read(), kind.arg(0));
                            map.put(key, read(in, in.read(), kind.arg(1)));
                        }
                        return map;
                    }
                }
                case 't' -> {
                    int count = size(in, ':');
                    if ((any && count >= 1 && count <= TUPLES.size()) || TUPLES.indexOf(name) + 1 == count) {
                        Object[] items = new Object[count];
                        for (int i = 0; i < count; i++) {
                            items[i] = read(in, in.read(), kind.arg(i));
                        }
                        return tuple(items);
                    }
                }
                case -1 -> throw new java.io.EOFException("the other side ended in the middle of a value");
                default -> throw new IllegalStateException("'" + (char) tag + "' is no tag of the wire format");
            }
            throw new IllegalStateException("a value tagged '" + (char) tag + "' where the declared type is " + name);
        }

        static Object tuple(Object[] items) {
            return switch (items.length) {
                case 1 -> org.javatuples.Unit.fromArray(items);
                case 2 -> org.javatuples.Pair.fromArray(items);
                case 3 -> org.javatuples.Triplet.fromArray(items);
                case 4 -> org.javatuples.Quartet.fromArray(items);
                case 5 -> org.javatuples.Quintet.fromArray(items);
                case 6 -> org.javatuples.Sextet.fromArray(items);
                case 7 -> org.javatuples.Septet.fromArray(items);
                case 8 -> org.javatuples.Octet.fromArray(items);
                case 9 -> org.javatuples.Ennead.fromArray(items);
                default -> org.javatuples.Decade.fromArray(items);
            };
        }

        static String until(java.io.InputStream in, char end) throws java.io.IOException {
            StringBuilder digits = new StringBuilder();
            for (int c = in.read(); c != end; c = in.read()) {
                if (c < 0 || digits.length() > 100000) {
                    throw new java.io.EOFException("a number without its end in the wire format");
                }
                digits.append((char) c);
            }
            return digits.toString();
        }

        static int size(java.io.InputStream in, char end) throws java.io.IOException {
            String digits = until(in, end);
            try {
                int count = Integer.parseInt(digits);
                if (count >= 0) {
                    return count;
                }
            } catch (NumberFormatException e) {
                // not a count: refused below
            }
            throw new IllegalStateException("the count " + digits + " is no count");
        }

        static byte[] exactly(java.io.InputStream in, int count) throws java.io.IOException {
            byte[] data = in.readNBytes(count);
            if (data.length != count) {
                throw new java.io.EOFException("the other side ended in the middle of a value");
            }
            return data;
        }
    }
