// The call-based harness for Java (docs/grading.md). The grader fills in the placeholders in braces; the program is
// Solution.java next to this file (with LeetCode's `import java.util.*`), which javac compiles through the reference
// to Solution below. It reads the arguments (JSON, one a line) from stdin, converts each to the parameter type the
// method declares, calls Solution's method and prints the result as JSON after the marker, then writes the marker to
// stderr.
import java.lang.reflect.Array;
import java.lang.reflect.Constructor;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.Type;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;

public class RewardCallHarness {
    private static final String MARKER = "{marker}";
    private static final String FUNCTION = "{function}";

    public static void main(String[] args) throws Throwable {
        String input = new String(System.in.readAllBytes(), StandardCharsets.UTF_8);
        List<Object> values = new ArrayList<>();
        for (String line : input.split("\n", -1)) {
            values.add(new Json(line).parse());
        }
        Class<?> owner = Solution.class;
        Method method = null;
        for (Method candidate : owner.getDeclaredMethods()) {
            if (candidate.getName().equals(FUNCTION) && candidate.getParameterCount() == values.size()
                    && !candidate.isSynthetic()) {
                if (method != null) {
                    fail("Solution has more than one " + FUNCTION + " taking " + values.size() + " arguments");
                }
                method = candidate;
            }
        }
        if (method == null) {
            fail("Solution has no method " + FUNCTION + " taking " + values.size() + " arguments");
        }
        method.setAccessible(true);
        Type[] types = method.getGenericParameterTypes();
        Object[] arguments = new Object[types.length];
        for (int i = 0; i < types.length; i++) {
            arguments[i] = convert(values.get(i), types[i], "argument " + (i + 1));
        }
        Object result;
        try {
            Object target = null;
            if (!Modifier.isStatic(method.getModifiers())) {
                Constructor<?> constructor = owner.getDeclaredConstructor();
                constructor.setAccessible(true);
                target = constructor.newInstance();
            }
            result = method.invoke(target, arguments);
        } catch (InvocationTargetException e) {
            throw e.getCause();
        }
        StringBuilder report = new StringBuilder();
        write(report, result);
        System.out.flush();
        System.out.write((MARKER + report + "\n").getBytes(StandardCharsets.UTF_8));
        System.out.flush();
        System.err.println(MARKER);
        System.err.flush();
    }

    static void fail(String why) {
        System.out.flush();
        System.err.println("call harness: " + why);
        System.err.flush();
        System.exit(1);
    }

    static long integral(Object value, String where, long min, long max) {
        long integer = 0;
        if (value instanceof Long l) {
            integer = l;
        } else if (value instanceof Double d && d == Math.rint(d) && Math.abs(d) < 9.2e18) {
            integer = d.longValue();
        } else {
            fail(where + ": not an integer");
        }
        if (integer < min || integer > max) {
            fail(where + ": " + integer + " does not fit the parameter's type");
        }
        return integer;
    }

    static double number(Object value, String where) {
        if (value instanceof Long l) {
            return l;
        }
        if (!(value instanceof Double)) {
            fail(where + ": not a number");
        }
        return (Double) value;
    }

    static List<?> list(Object value, String where) {
        if (!(value instanceof List<?>)) {
            fail(where + ": not a list");
        }
        return (List<?>) value;
    }

    // A JSON value as the parameter type the method declares.
    static Object convert(Object value, Type type, String where) {
        if (type instanceof ParameterizedType parameterized) {
            Class<?> raw = (Class<?>) parameterized.getRawType();
            if (raw != List.class && raw != ArrayList.class && raw != Collection.class && raw != Iterable.class) {
                fail(where + ": cannot fill a " + type.getTypeName());
            }
            if (value == null) {
                return null;
            }
            Type element = parameterized.getActualTypeArguments()[0];
            List<Object> out = new ArrayList<>();
            List<?> items = list(value, where);
            for (int i = 0; i < items.size(); i++) {
                out.add(convert(items.get(i), element, where + "[" + i + "]"));
            }
            return out;
        }
        if (!(type instanceof Class<?> kind)) {
            fail(where + ": cannot fill a " + type.getTypeName());
            return null;
        }
        if (value == null) {
            if (kind.isPrimitive()) {
                fail(where + ": null for a " + kind.getName());
            }
            return null;
        }
        if (kind == int.class || kind == Integer.class) {
            return (int) integral(value, where, Integer.MIN_VALUE, Integer.MAX_VALUE);
        }
        if (kind == long.class || kind == Long.class) {
            return integral(value, where, Long.MIN_VALUE, Long.MAX_VALUE);
        }
        if (kind == short.class || kind == Short.class) {
            return (short) integral(value, where, Short.MIN_VALUE, Short.MAX_VALUE);
        }
        if (kind == byte.class || kind == Byte.class) {
            return (byte) integral(value, where, Byte.MIN_VALUE, Byte.MAX_VALUE);
        }
        if (kind == double.class || kind == Double.class) {
            return number(value, where);
        }
        if (kind == float.class || kind == Float.class) {
            return (float) number(value, where);
        }
        if (kind == boolean.class || kind == Boolean.class) {
            if (!(value instanceof Boolean)) {
                fail(where + ": not a boolean");
            }
            return value;
        }
        if (kind == char.class || kind == Character.class) {
            if (!(value instanceof String text) || text.length() != 1) {
                fail(where + ": not a one-character string");
                return null;
            }
            return text.charAt(0);
        }
        if (kind == String.class) {
            if (!(value instanceof String)) {
                fail(where + ": not a string");
            }
            return value;
        }
        if (kind.isArray()) {
            List<?> items = list(value, where);
            Object out = Array.newInstance(kind.getComponentType(), items.size());
            for (int i = 0; i < items.size(); i++) {
                Array.set(out, i, convert(items.get(i), kind.getComponentType(), where + "[" + i + "]"));
            }
            return out;
        }
        if (kind == List.class || kind == ArrayList.class || kind == Collection.class || kind == Iterable.class
                || kind == Object.class) {
            return value;
        }
        fail(where + ": cannot fill a " + kind.getName());
        return null;
    }

    // The result as JSON: lists for arrays and collections, a tagged object for a map.
    static void write(StringBuilder out, Object value) {
        if (value == null) {
            out.append("null");
        } else if (value instanceof Boolean || value instanceof Integer || value instanceof Long
                || value instanceof Short || value instanceof Byte || value instanceof java.math.BigInteger) {
            out.append(value);
        } else if (value instanceof Double || value instanceof Float) {
            double number = ((Number) value).doubleValue();
            if (Double.isNaN(number)) {
                out.append("NaN");
            } else if (Double.isInfinite(number)) {
                out.append(number > 0 ? "Infinity" : "-Infinity");
            } else {
                out.append(value);  // Double.toString / Float.toString: the shortest exact form of its own type
            }
        } else if (value instanceof Character || value instanceof String) {
            quote(out, value.toString());
        } else if (value.getClass().isArray()) {
            out.append('[');
            for (int i = 0; i < Array.getLength(value); i++) {
                if (i > 0) {
                    out.append(',');
                }
                write(out, Array.get(value, i));
            }
            out.append(']');
        } else if (value instanceof Iterable<?> items) {
            out.append('[');
            boolean first = true;
            for (Object item : items) {
                if (!first) {
                    out.append(',');
                }
                first = false;
                write(out, item);
            }
            out.append(']');
        } else if (value instanceof Map<?, ?> map) {
            out.append("{\"d\":[");
            boolean first = true;
            for (Map.Entry<?, ?> entry : map.entrySet()) {
                out.append(first ? "[" : ",[");
                first = false;
                write(out, entry.getKey());
                out.append(',');
                write(out, entry.getValue());
                out.append(']');
            }
            out.append("]}");
        } else {
            fail("cannot report a " + value.getClass().getName());
        }
    }

    static void quote(StringBuilder out, String text) {
        out.append('"');
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c == '"' || c == '\\') {
                out.append('\\').append(c);
            } else if (c < 0x20) {
                out.append(String.format("\\u%04x", (int) c));
            } else {
                out.append(c);
            }
        }
        out.append('"');
    }

    // JSON text as Long, Double, Boolean, String, null, List and Map.
    static final class Json {
        private final String text;
        private int at = 0;

        Json(String text) {
            this.text = text;
        }

        Object parse() {
            Object value = next();
            skip();
            if (at != text.length()) {
                fail("text after a JSON value");
            }
            return value;
        }

        private void skip() {
            while (at < text.length() && " \t\r\n".indexOf(text.charAt(at)) >= 0) {
                at++;
            }
        }

        private boolean word(String literal) {
            if (!text.startsWith(literal, at)) {
                return false;
            }
            at += literal.length();
            return true;
        }

        private Object next() {
            skip();
            if (at >= text.length()) {
                fail("a JSON value ends early");
            }
            char c = text.charAt(at);
            if (c == '[') {
                at++;
                List<Object> items = new ArrayList<>();
                skip();
                if (at < text.length() && text.charAt(at) == ']') {
                    at++;
                    return items;
                }
                while (true) {
                    items.add(next());
                    skip();
                    if (at < text.length() && text.charAt(at) == ',') {
                        at++;
                    } else if (at < text.length() && text.charAt(at) == ']') {
                        at++;
                        return items;
                    } else {
                        fail("a JSON list is not closed");
                    }
                }
            }
            if (c == '{') {
                at++;
                Map<Object, Object> map = new java.util.LinkedHashMap<>();
                skip();
                if (at < text.length() && text.charAt(at) == '}') {
                    at++;
                    return map;
                }
                while (true) {
                    Object key = next();
                    skip();
                    if (at >= text.length() || text.charAt(at++) != ':') {
                        fail("a JSON object lacks a ':'");
                    }
                    map.put(key, next());
                    skip();
                    if (at < text.length() && text.charAt(at) == ',') {
                        at++;
                    } else if (at < text.length() && text.charAt(at) == '}') {
                        at++;
                        return map;
                    } else {
                        fail("a JSON object is not closed");
                    }
                }
            }
            if (c == '"') {
                return string();
            }
            if (word("true")) {
                return Boolean.TRUE;
            }
            if (word("false")) {
                return Boolean.FALSE;
            }
            if (word("null")) {
                return null;
            }
            int start = at;
            while (at < text.length() && "+-0123456789.eE".indexOf(text.charAt(at)) >= 0) {
                at++;
            }
            String digits = text.substring(start, at);
            try {
                if (digits.matches("-?[0-9]+")) {
                    return Long.parseLong(digits);
                }
                return Double.parseDouble(digits);
            } catch (NumberFormatException e) {
                fail("the number " + digits + " is not one or does not fit");
                return null;
            }
        }

        private String string() {
            StringBuilder out = new StringBuilder();
            at++;
            while (true) {
                if (at >= text.length()) {
                    fail("a JSON string is not closed");
                }
                char c = text.charAt(at++);
                if (c == '"') {
                    return out.toString();
                }
                if (c != '\\') {
                    out.append(c);
                    continue;
                }
                if (at >= text.length()) {
                    fail("a JSON string is not closed");
                }
                char escaped = text.charAt(at++);
                switch (escaped) {
                    case 'b' -> out.append('\b');
                    case 'f' -> out.append('\f');
                    case 'n' -> out.append('\n');
                    case 'r' -> out.append('\r');
                    case 't' -> out.append('\t');
                    case 'u' -> {
                        if (at + 4 > text.length()) {
                            fail("a \\u escape ends early");
                        }
                        out.append((char) Integer.parseInt(text.substring(at, at + 4), 16));
                        at += 4;
                    }
                    default -> out.append(escaped);
                }
            }
        }
    }
}
