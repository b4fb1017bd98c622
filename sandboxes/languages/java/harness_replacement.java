public static void main(String[] reward_args_) throws Throwable {
        reward_tests_main_(reward_args_);
        System.err.println("{marker}");
        System.err.flush();
    }
    // The tests compare values through this (their `X.equals(Y)`), never through the program's own objects: both sides
    // are copied into fresh JDK values first, collections, maps, optionals, arrays and javatuples tuples by their
    // contents, and what they hold must be of the JDK's classes (whose equals is the JDK's). The program's value may be
    // a collection of a class of its own (it is copied by its contents); the expected value, which the tests build,
    // must be the JDK's or javatuples' throughout (a nested class of the program's can shadow the names they build it
    // with). Every qualified name here sits where only a type can stand: a field the program names `java` cannot.
    static final java.util.function.BiPredicate<java.lang.Object, java.lang.Object> reward_same_ =
        new java.util.function.BiPredicate<java.lang.Object, java.lang.Object>() {
            public boolean test(java.lang.Object got, java.lang.Object expected) {
                java.lang.Object left = plain(got, false), right = plain(expected, true);
                return left == null ? right == null : left.equals(right);
            }

            java.lang.Object plain(java.lang.Object value, boolean expected) {
                if (value == null) return null;
                java.lang.Class<?> type = value.getClass();
                java.lang.ClassLoader loader = type.getClassLoader(), programs = getClass().getClassLoader();
                boolean jdk = loader == null || loader == programs.getParent();
                boolean container = value instanceof java.lang.Iterable || value instanceof java.util.Map
                    || value instanceof java.util.Optional || value instanceof java.lang.Object[];
                if (!jdk && (expected || !container)
                        && !(loader == programs && type.getName().startsWith("org.javatuples."))) {
                    throw new java.lang.AssertionError("the tests compare plain data, not a " + type.getName());
                }
                if (value instanceof java.util.Map) {
                    java.util.Map<java.lang.Object, java.lang.Object> map = new java.util.HashMap<>();
                    for (java.util.Map.Entry<?, ?> entry : ((java.util.Map<?, ?>) value).entrySet()) {
                        map.put(plain(entry.getKey(), expected), plain(entry.getValue(), expected));
                    }
                    return map;
                }
                if (value instanceof java.util.Set) {
                    return copy((java.lang.Iterable<?>) value, new java.util.HashSet<>(), expected);
                }
                java.util.List<java.lang.Object> items = new java.util.ArrayList<>();
                if (value instanceof org.javatuples.Tuple || value instanceof java.util.Optional) {
                    items.add(type.getName());   // a tuple, an optional: its kind, then what it holds
                }
                if (value instanceof java.lang.Iterable) return copy((java.lang.Iterable<?>) value, items, expected);
                if (value instanceof java.util.Optional) {
                    if (((java.util.Optional<?>) value).isPresent()) {
                        items.add(plain(((java.util.Optional<?>) value).get(), expected));
                    }
                    return items;
                }
                if (value instanceof java.lang.Object[]) {
                    for (java.lang.Object item : (java.lang.Object[]) value) items.add(plain(item, expected));
                    return items;
                }
                return value;
            }

            <C extends java.util.Collection<java.lang.Object>> C copy(java.lang.Iterable<?> items, C into,
                                                                         boolean expected) {
                for (java.lang.Object item : items) into.add(plain(item, expected));
                return into;
            }
        };
    static void reward_tests_main_(String[] args)