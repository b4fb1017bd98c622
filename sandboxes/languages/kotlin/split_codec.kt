// The wire format (docs/guards.md, "Values across the pipe"), both sides' reader and writer, a top-level object of
// each side's file. A value is read by the type the prompt declares, into the JDK's and the standard library's own
// classes only (ArrayList, LinkedHashMap, LinkedHashSet, Pair, Triple, arrays), and written by that type too: a value
// whose class does not fit it (an Int among a List<Long>'s elements, which `==` would tell apart) does not cross.
@Suppress("UNCHECKED_CAST")
object RewardWire_ {
    // the dispatcher's first reply bytes: what the program printed before them (its top-level initializers run before
    // the dispatcher's main) is skipped by the stub
    private const val READY = "\u0000split: ready\n"

    // a declared type: its simple name, its type arguments, whether it admits null
    class Kind(val name: String, val nullable: Boolean) {
        val args = ArrayList<Kind>()

        fun arg(index: Int): Kind = if (index < args.size) args[index] else ANY
    }

    private val ANY = Kind("Any", true)
    private val STRING = Kind("String", false)
    private val LISTS = setOf("List", "MutableList", "ArrayList", "Collection", "MutableCollection")
    private val SETS = setOf("Set", "MutableSet", "HashSet", "LinkedHashSet")
    private val MAPS = setOf("Map", "MutableMap", "HashMap", "LinkedHashMap")
    private val ARRAYS = mapOf("IntArray" to "Int", "LongArray" to "Long", "ShortArray" to "Short",
                               "DoubleArray" to "Double", "FloatArray" to "Float", "BooleanArray" to "Boolean",
                               "CharArray" to "Char")
    private val NAMES = LISTS + SETS + MAPS + ARRAYS.keys + setOf("Any", "Unit", "Long", "Int", "Short", "Byte",
        "BigInteger", "Double", "Float", "Boolean", "Char", "String", "ByteArray", "Pair", "Triple", "Array")
    private var calls: java.io.OutputStream? = null
    private var replies: java.io.InputStream? = null

    // The tests' side: one call of the entry function, its result read back as `ret` ("": Unit).
    fun <T> call(params: Array<String>, ret: String, args: Array<Any?>, unsupported: String): T {
        val out = java.io.ByteArrayOutputStream()
        val kinds: List<Kind>
        val result: Kind
        val sent: List<ByteArray>      // each argument as it crossed: one that comes back otherwise was changed
        try {
            result = kind(ret)
            kinds = params.map { kind(it) }
            sent = args.indices.map { encoded(args[it], kinds[it]) }
        } catch (e: RuntimeException) {     // the benchmark's types or values, not the program's doing
            System.err.println(unsupported + e.message)
            System.err.flush()
            Runtime.getRuntime().halt(1)
            throw e
        }
        header(out, 'C', args.size)
        sent.forEach { out.write(it) }
        try {
            val input = replies ?: opened()
            calls!!.write(out.toByteArray())
            calls!!.flush()
            val tag = input.read()
            if (tag == 'R'.toInt()) {
                val value = read(input, input.read(), result)
                if (input.read() != 'l'.toInt() || size(input, ':') != args.size) {
                    throw IllegalStateException("the program's reply is not a value")
                }
                for (i in args.indices) {
                    val after = read(input, input.read(), kinds[i])
                    if (!encoded(after, kinds[i]).contentEquals(sent[i])) {
                        copyBack(args[i], after)
                    }
                }
                return value as T
            }
            if (tag == 'X'.toInt()) {
                val name = read(input, input.read(), STRING) as String
                throw raised(name, read(input, input.read(), STRING) as String)
            }
            throw IllegalStateException(if (tag < 0) "the program ended during a call"
                                        else "the program's reply is not a value")
        } catch (e: java.io.IOException) {
            throw IllegalStateException("the program ended during a call", e)
        }
    }

    private fun encoded(value: Any?, kind: Kind): ByteArray {
        val out = java.io.ByteArrayOutputStream()
        write(out, value, kind)
        return out.toByteArray()
    }

    // fds 3 (calls) and 4 (replies), the replies past the dispatcher's READY
    private fun opened(): java.io.InputStream {
        calls = java.io.FileOutputStream(descriptor(3))
        val input = java.io.BufferedInputStream(java.io.FileInputStream(descriptor(4)))
        var matched = 0
        while (matched < READY.length) {
            val c = input.read()
            if (c < 0) {
                throw java.io.EOFException("the program ended before it answered")
            }
            matched = if (c == READY[matched].toInt()) matched + 1 else if (c == 0) 1 else 0
        }
        replies = input
        return input
    }

    // fd 3 or 4 of the tests: the JVM opens no descriptor by number, so the run command opens java.io to this field
    private fun descriptor(number: Int): java.io.FileDescriptor {
        val fd = java.io.FileDescriptor()
        val field = java.io.FileDescriptor::class.java.getDeclaredField("fd")
        field.isAccessible = true
        field.setInt(fd, number)
        return fd
    }

    // what the function threw, as the JDK's own unchecked class of that name where there is one
    private fun raised(name: String, message: String): Throwable {
        try {
            val type = Class.forName(name, false, null)     // the boot loader's: never a program's class
            if (RuntimeException::class.java.isAssignableFrom(type) || Error::class.java.isAssignableFrom(type)) {
                return type.getConstructor(String::class.java).newInstance(message) as Throwable
            }
        } catch (e: ReflectiveOperationException) {
            // no such class, or none made from a message: the generic error below
        } catch (e: LinkageError) {
            // a class of that name that cannot be loaded: the same
        }
        return RuntimeException("the function threw $name: $message")
    }

    private fun copyBack(arg: Any?, changed: Any?) {
        if (arg is MutableCollection<*> && changed is Collection<*>) {
            (arg as MutableCollection<Any?>).clear()
            arg.addAll(changed)
        } else if (arg is MutableMap<*, *> && changed is Map<*, *>) {
            (arg as MutableMap<Any?, Any?>).clear()
            arg.putAll(changed)
        } else if (arg != null && arg.javaClass.isArray && changed != null && changed.javaClass == arg.javaClass &&
                   java.lang.reflect.Array.getLength(arg) == java.lang.reflect.Array.getLength(changed)) {
            System.arraycopy(changed, 0, arg, 0, java.lang.reflect.Array.getLength(arg))
        }
    }

    // The program's side: calls read from fd 0, the entry called, one reply each on fd 1.
    fun serve(params: Array<String>, ret: String, entry: (Array<Any?>) -> Any?) {
        val input = java.io.BufferedInputStream(java.io.FileInputStream(java.io.FileDescriptor.`in`))
        val replies = java.io.FileOutputStream(java.io.FileDescriptor.out)
        System.setOut(System.err)     // what the program prints goes to stderr, never among the replies
        replies.write(READY.toByteArray(Charsets.US_ASCII))
        replies.flush()
        val result = kind(ret)
        val kinds = params.map { kind(it) }
        while (input.read() == 'C'.toInt()) {
            val args = arrayOfNulls<Any?>(size(input, ':'))
            for (i in args.indices) {
                args[i] = read(input, input.read(), if (i < kinds.size) kinds[i] else ANY)
            }
            val out = java.io.ByteArrayOutputStream()
            try {
                out.write('R'.toInt())
                write(out, entry(args), result)
                header(out, 'l', args.size)
                for (i in args.indices) {
                    write(out, args[i], kinds[i])
                }
            } catch (thrown: Throwable) {
                var known: Class<*> = thrown.javaClass
                while (known.classLoader != null) {
                    known = known.superclass
                }
                out.reset()
                out.write('X'.toInt())
                write(out, known.name, STRING)
                write(out, thrown.message ?: "", STRING)
            }
            replies.write(out.toByteArray())
            replies.flush()
        }
    }

    // "ArrayList<Pair<Long, Long>>?" as a Kind ("": Unit); a type the wire cannot carry is refused here
    fun kind(text: String): Kind {
        val type = text.replace(Regex("\\b(?:out|in)\\s+"), "").replace(Regex("\\s+"), "").ifEmpty { "Unit" }
        val at = intArrayOf(0)
        val kind = kind(type, at)
        if (at[0] != type.length) {
            throw IllegalArgumentException("the type $text does not cross to the tests")
        }
        return kind
    }

    private fun kind(type: String, at: IntArray): Kind {
        if (type.startsWith("*", at[0])) {
            at[0]++
            return ANY
        }
        val start = at[0]
        while (at[0] < type.length && (Character.isJavaIdentifierPart(type[at[0]]) || type[at[0]] == '.')) {
            at[0]++
        }
        val name = type.substring(start, at[0]).substringAfterLast('.')
        val args = ArrayList<Kind>()
        if (at[0] < type.length && type[at[0]] == '<') {
            do {
                at[0]++
                args.add(kind(type, at))
            } while (at[0] < type.length && type[at[0]] == ',')
            if (at[0] >= type.length || type[at[0]++] != '>') {
                throw IllegalArgumentException("the type $type does not cross to the tests")
            }
        }
        val nullable = at[0] < type.length && type[at[0]] == '?'
        if (nullable) {
            at[0]++
        }
        if (name !in NAMES) {
            throw IllegalArgumentException("a ${type.substring(start, at[0])} does not cross to the tests")
        }
        val kind = Kind(name, nullable)
        kind.args.addAll(if (name in ARRAYS) listOf(Kind(ARRAYS.getValue(name), false)) else args)
        return kind
    }

    // the Kind of a value typed Any: its own class's
    private fun kindOf(value: Any): Kind {
        val name = when (value) {
            is Long -> "Long"
            is Int -> "Int"
            is Short -> "Short"
            is Byte -> "Byte"
            is java.math.BigInteger -> "BigInteger"
            is Double -> "Double"
            is Float -> "Float"
            is Boolean -> "Boolean"
            is Char -> "Char"
            is String -> "String"
            is Unit -> "Unit"
            is Map<*, *> -> "Map"
            is Set<*> -> "Set"
            is List<*> -> "List"
            is Pair<*, *> -> "Pair"
            is Triple<*, *, *> -> "Triple"
            is Array<*> -> "Array"
            is ByteArray -> "ByteArray"
            is IntArray -> "IntArray"
            is LongArray -> "LongArray"
            is ShortArray -> "ShortArray"
            is DoubleArray -> "DoubleArray"
            is FloatArray -> "FloatArray"
            is BooleanArray -> "BooleanArray"
            is CharArray -> "CharArray"
            else -> throw ClassCastException("a ${value.javaClass.name} does not cross to the tests")
        }
        return kind(name)
    }

    fun write(out: java.io.ByteArrayOutputStream, value: Any?, kind: Kind) {
        if (kind.name == "Unit" || value == null) {      // Unit, or a null where the type admits one
            if (value != null && value != Unit || value == null && !kind.nullable && kind.name != "Unit") {
                throw ClassCastException("a ${value?.javaClass?.name ?: "null"} is no ${kind.name}")
            }
            out.write('N'.toInt())
            return
        }
        when (kind.name) {
            "Any" -> write(out, value, kindOf(value))
            "Long" -> text(out, "i" + (value as Long) + ";")
            "Int" -> text(out, "i" + (value as Int) + ";")
            "Short" -> text(out, "i" + (value as Short) + ";")
            "Byte" -> text(out, "i" + (value as Byte) + ";")
            "BigInteger" -> text(out, "i" + (value as java.math.BigInteger) + ";")
            "Double" -> bits(out, value as Double)
            "Float" -> bits(out, (value as Float).toDouble())
            "Boolean" -> out.write((if (value as Boolean) 'T' else 'F').toInt())
            "Char" -> bytes(out, 'c', (value as Char).toString())
            "String" -> bytes(out, 's', value as String)
            "ByteArray" -> {
                val data = value as ByteArray
                header(out, 'y', data.size)
                out.write(data)
            }
            in LISTS -> items(out, 'l', value as Collection<*>, kind.arg(0))
            in SETS -> items(out, 'e', value as Set<*>, kind.arg(0))
            "Array" -> items(out, 'l', (value as Array<*>).asList(), kind.arg(0))
            in ARRAYS -> items(out, 'l', (0 until java.lang.reflect.Array.getLength(value))
                .map { java.lang.reflect.Array.get(value, it) }, kind.arg(0))
            in MAPS -> {
                val map = value as Map<*, *>
                header(out, 'm', map.size)
                for ((key, item) in map) {
                    write(out, key, kind.arg(0))
                    write(out, item, kind.arg(1))
                }
            }
            "Pair" -> {
                val pair = value as Pair<*, *>
                header(out, 't', 2)
                write(out, pair.first, kind.arg(0))
                write(out, pair.second, kind.arg(1))
            }
            else -> {    // Triple
                val triple = value as Triple<*, *, *>
                header(out, 't', 3)
                write(out, triple.first, kind.arg(0))
                write(out, triple.second, kind.arg(1))
                write(out, triple.third, kind.arg(2))
            }
        }
    }

    private fun items(out: java.io.ByteArrayOutputStream, tag: Char, items: Collection<*>, kind: Kind) {
        header(out, tag, items.size)
        for (item in items) {
            write(out, item, kind)
        }
    }

    private fun header(out: java.io.ByteArrayOutputStream, tag: Char, count: Int) = text(out, "$tag$count:")

    private fun bits(out: java.io.ByteArrayOutputStream, value: Double) =
        text(out, String.format("d%016x", java.lang.Double.doubleToRawLongBits(value)))

    private fun bytes(out: java.io.ByteArrayOutputStream, tag: Char, value: String) {
        val data = value.toByteArray(Charsets.UTF_8)
        header(out, tag, data.size)
        out.write(data)
    }

    private fun text(out: java.io.ByteArrayOutputStream, ascii: String) = out.write(ascii.toByteArray(Charsets.US_ASCII))

    // One value whose tag has been read, as `kind` declares it: the JDK's and the standard library's classes only.
    fun read(input: java.io.InputStream, tag: Int, kind: Kind): Any? {
        val name = kind.name
        val any = name == "Any"
        when (tag) {
            'N'.toInt(), 'U'.toInt() -> if (name == "Unit") return Unit else if (kind.nullable) return null
            'T'.toInt(), 'F'.toInt() -> if (any || name == "Boolean") return tag == 'T'.toInt()
            'i'.toInt() -> {
                val digits = until(input, ';')
                try {
                    when (name) {
                        "Long" -> return digits.toLong()
                        "Int" -> return digits.toInt()
                        "Short" -> return digits.toShort()
                        "Byte" -> return digits.toByte()
                        "BigInteger" -> return java.math.BigInteger(digits)
                        "Any" -> return digits.toLongOrNull() ?: java.math.BigInteger(digits)
                    }
                } catch (e: NumberFormatException) {
                    throw IllegalStateException("the integer $digits is no $name")
                }
            }
            'd'.toInt() -> {
                val hex = String(exactly(input, 16), Charsets.US_ASCII)
                val value = try {
                    java.lang.Double.longBitsToDouble(java.lang.Long.parseUnsignedLong(hex, 16))
                } catch (e: NumberFormatException) {
                    throw IllegalStateException("a float that is not 16 hex digits")
                }
                if (any || name == "Double") {
                    return value
                }
                if (name == "Float") {
                    return value.toFloat()
                }
            }
            's'.toInt(), 'c'.toInt() -> {
                val text = String(exactly(input, size(input, ':')), Charsets.UTF_8)
                if (tag == 's'.toInt() && (any || name == "String")) {
                    return text
                }
                if (tag == 'c'.toInt() && (any || name == "Char") && text.length == 1) {
                    return text[0]
                }
            }
            'y'.toInt() -> {
                val data = exactly(input, size(input, ':'))
                if (any || name == "ByteArray") {
                    return data
                }
            }
            'l'.toInt(), 'e'.toInt() -> {
                val list = tag == 'l'.toInt()
                if (any || name in (if (list) LISTS + ARRAYS.keys + "Array" else SETS)) {
                    val count = size(input, ':')
                    val items: MutableCollection<Any?> = if (list) ArrayList() else LinkedHashSet()
                    for (i in 0 until count) {
                        items.add(read(input, input.read(), kind.arg(0)))
                    }
                    return if (name == "Array" || name in ARRAYS) array(items as List<Any?>, kind) else items
                }
            }
            'm'.toInt() -> if (any || name in MAPS) {
                val count = size(input, ':')
                val map = LinkedHashMap<Any?, Any?>()
                for (i in 0 until count) {
                    val key = read(input, input.read(), kind.arg(0))
                    map[key] = read(input, input.read(), kind.arg(1))
                }
                return map
            }
            't'.toInt() -> {
                val count = size(input, ':')
                if ((count == 2 && (any || name == "Pair")) || (count == 3 && (any || name == "Triple"))) {
                    val items = (0 until count).map { read(input, input.read(), kind.arg(it)) }
                    return if (count == 2) Pair(items[0], items[1]) else Triple(items[0], items[1], items[2])
                }
            }
            -1 -> throw java.io.EOFException("the other side ended in the middle of a value")
            else -> throw IllegalStateException("'${tag.toChar()}' is no tag of the wire format")
        }
        throw IllegalStateException("a value tagged '${tag.toChar()}' where the declared type is $name")
    }

    // the items as the array `kind` names: Array<T> of T's class, or an array of a primitive
    private fun array(items: List<Any?>, kind: Kind): Any {
        val array = java.lang.reflect.Array.newInstance(component(kind.name, kind.arg(0)), items.size)
        for ((i, item) in items.withIndex()) {
            java.lang.reflect.Array.set(array, i, item)
        }
        return array
    }

    private fun component(array: String, kind: Kind): Class<*> = when {
        array != "Array" -> when (kind.name) {
            "Int" -> Int::class.javaPrimitiveType!!
            "Long" -> Long::class.javaPrimitiveType!!
            "Short" -> Short::class.javaPrimitiveType!!
            "Double" -> Double::class.javaPrimitiveType!!
            "Float" -> Float::class.javaPrimitiveType!!
            "Boolean" -> Boolean::class.javaPrimitiveType!!
            else -> Char::class.javaPrimitiveType!!
        }
        kind.name == "Array" || kind.name in ARRAYS ->
            java.lang.reflect.Array.newInstance(component(kind.name, kind.arg(0)), 0).javaClass
        else -> when (kind.name) {
            "Long" -> Long::class.javaObjectType
            "Int" -> Int::class.javaObjectType
            "Short" -> Short::class.javaObjectType
            "Byte" -> Byte::class.javaObjectType
            "BigInteger" -> java.math.BigInteger::class.java
            "Double" -> Double::class.javaObjectType
            "Float" -> Float::class.javaObjectType
            "Boolean" -> Boolean::class.javaObjectType
            "Char" -> Char::class.javaObjectType
            "String" -> String::class.java
            "ByteArray" -> ByteArray::class.java
            in LISTS -> List::class.java
            in SETS -> Set::class.java
            in MAPS -> Map::class.java
            "Pair" -> Pair::class.java
            "Triple" -> Triple::class.java
            else -> Any::class.java
        }
    }

    private fun until(input: java.io.InputStream, end: Char): String {
        val digits = StringBuilder()
        var c = input.read()
        while (c != end.toInt()) {
            if (c < 0 || digits.length > 100000) {
                throw java.io.EOFException("a number without its end in the wire format")
            }
            digits.append(c.toChar())
            c = input.read()
        }
        return digits.toString()
    }

    private fun size(input: java.io.InputStream, end: Char): Int {
        val digits = until(input, end)
        val count = digits.toIntOrNull()
        if (count == null || count < 0) {
            throw IllegalStateException("the count $digits is no count")
        }
        return count
    }

    private fun exactly(input: java.io.InputStream, count: Int): ByteArray {
        val data = input.readNBytes(count)
        if (data.size != count) {
            throw java.io.EOFException("the other side ended in the middle of a value")
        }
        return data
    }
}
