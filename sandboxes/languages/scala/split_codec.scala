    // The wire format (docs/guards.md, "Values across the pipe"), both sides' reader and writer, nested in the object
    // the prompt opens. A value is read by the type the prompt declares, into the standard library's own classes, and
    // written by that type too: a value whose class does not fit it (an Int among a List[Long]'s elements) does not
    // cross. A collection the prompt names is built by that name as the prompt's imports bind it (List, Seq, Map and
    // Set: MultiPL-E imports scala.collection.mutable._, whose Map and Set its tests build); everything else is named
    // from _root_, so no name of the prompt's or the program's stands in for the library's here.
    object RewardWire_ {
        private type Out = _root_.java.io.ByteArrayOutputStream
        private type In = _root_.java.io.InputStream
        private type Items = _root_.scala.collection.immutable.Vector[_root_.scala.Any]
        // the dispatcher's first reply bytes: what the program printed before them (the object's own initializer runs
        // before main) is skipped by the stub
        private val Ready = "\u0000split: ready\n"

        // a declared type: its simple name and its type arguments
        final class Kind(val name: _root_.java.lang.String, val args: _root_.scala.collection.immutable.List[Kind]) {
            def arg(index: _root_.scala.Int): Kind = if (index < args.length) args(index) else AnyKind
        }

        private val AnyKind = new Kind("Any", _root_.scala.collection.immutable.Nil)
        private val StringKind = new Kind("String", _root_.scala.collection.immutable.Nil)
        private val Lists = _root_.scala.collection.immutable.Set("List", "Seq", "IndexedSeq", "Vector", "ArrayBuffer",
            "ListBuffer", "Array")
        private val Sets = _root_.scala.collection.immutable.Set("Set", "HashSet")
        private val Maps = _root_.scala.collection.immutable.Set("Map", "HashMap")
        private val Tuples = (1 to 9).map("Tuple" + _)
        private val Values = _root_.scala.collection.immutable.Set("Long", "Int", "Short", "Byte", "Double", "Float",
            "Boolean", "Char")
        private val Scalars = _root_.scala.collection.immutable.Set("Any", "AnyVal", "AnyRef", "Unit", "Long", "Int",
            "Short", "Byte", "BigInt", "BigInteger", "Double", "Float", "Boolean", "Char", "String")
        // an Array's elements: what the JVM's arrays hold as the tests declare them
        private val ArrayItems = _root_.scala.collection.immutable.Map[_root_.java.lang.String, _root_.java.lang.Class[_]](
            "Long" -> classOf[_root_.scala.Long], "Int" -> classOf[_root_.scala.Int],
            "Short" -> classOf[_root_.scala.Short], "Byte" -> classOf[_root_.scala.Byte],
            "Double" -> classOf[_root_.scala.Double], "Float" -> classOf[_root_.scala.Float],
            "Boolean" -> classOf[_root_.scala.Boolean], "Char" -> classOf[_root_.scala.Char],
            "String" -> classOf[_root_.java.lang.String], "Any" -> classOf[_root_.java.lang.Object])
        private var calls: _root_.java.io.OutputStream = null
        private var replies: In = null

        // The tests' side: one call of the entry function, its result read back as `ret`.
        def call(params: _root_.scala.Array[_root_.java.lang.String], ret: _root_.java.lang.String,
                 args: _root_.scala.Array[_root_.scala.Any], unsupported: _root_.java.lang.String): _root_.scala.Any = {
            // each argument as it crossed: one that comes back otherwise was changed
            val (result, kinds, sent) = try {
                val kinds = params.map(kind)
                (kind(ret), kinds, args.indices.map(i => encoded(args(i), kinds(i))))
            } catch {
                case e: _root_.java.lang.RuntimeException =>   // the benchmark's types or values, not the program's doing
                    _root_.java.lang.System.err.println(unsupported + e.getMessage)
                    _root_.java.lang.System.err.flush()
                    _root_.java.lang.Runtime.getRuntime.halt(1)
                    throw e
            }
            val out = new Out()
            header(out, 'C', args.length)
            sent.foreach(out.write(_))
            try {
                if (replies == null) opened()
                calls.write(out.toByteArray)
                calls.flush()
                val tag = replies.read()
                if (tag == 'R') {
                    val value = read(replies, replies.read(), result)
                    if (replies.read() != 'l' || size(replies, ':') != args.length) {
                        throw new _root_.java.lang.IllegalStateException("the program's reply is not a value")
                    }
                    for (i <- args.indices) {
                        val after = read(replies, replies.read(), kinds(i))
                        if (!_root_.java.util.Arrays.equals(encoded(after, kinds(i)), sent(i))) copyBack(args(i), after)
                    }
                    value
                } else if (tag == 'X') {
                    val name = read(replies, replies.read(), StringKind).asInstanceOf[_root_.java.lang.String]
                    throw raised(name, read(replies, replies.read(), StringKind).asInstanceOf[_root_.java.lang.String])
                } else {
                    throw new _root_.java.lang.IllegalStateException(if (tag < 0) "the program ended during a call"
                                                                     else "the program's reply is not a value")
                }
            } catch {
                case e: _root_.java.io.IOException =>
                    throw new _root_.java.lang.IllegalStateException("the program ended during a call", e)
            }
        }

        private def encoded(value: _root_.scala.Any, kind: Kind): _root_.scala.Array[_root_.scala.Byte] = {
            val out = new Out()
            write(out, value, kind)
            out.toByteArray
        }

        // fds 3 (calls) and 4 (replies), the replies past the dispatcher's Ready
        private def opened(): _root_.scala.Unit = {
            calls = new _root_.java.io.FileOutputStream(descriptor(3))
            val in = new _root_.java.io.BufferedInputStream(new _root_.java.io.FileInputStream(descriptor(4)))
            var matched = 0
            while (matched < Ready.length) {
                val c = in.read()
                if (c < 0) throw new _root_.java.io.EOFException("the program ended before it answered")
                matched = if (c == Ready(matched)) matched + 1 else if (c == 0) 1 else 0
            }
            replies = in
        }

        // fd 3 or 4 of the tests: the JVM opens no descriptor by number, so the run command opens java.io to this field
        private def descriptor(number: _root_.scala.Int): _root_.java.io.FileDescriptor = {
            val fd = new _root_.java.io.FileDescriptor()
            val field = classOf[_root_.java.io.FileDescriptor].getDeclaredField("fd")
            field.setAccessible(true)
            field.setInt(fd, number)
            fd
        }

        // what the function threw, as the JDK's own unchecked class of that name where there is one
        private def raised(name: _root_.java.lang.String, message: _root_.java.lang.String): _root_.java.lang.Throwable = {
            try {
                val loaded = _root_.java.lang.Class.forName(name, false, null)   // the boot loader's: never a program's
                if (classOf[_root_.java.lang.RuntimeException].isAssignableFrom(loaded)
                        || classOf[_root_.java.lang.Error].isAssignableFrom(loaded)) {
                    return loaded.getConstructor(classOf[_root_.java.lang.String]).newInstance(message)
                        .asInstanceOf[_root_.java.lang.Throwable]
                }
            } catch {
                // no such class, or none made from a message: the generic error below
                case _: _root_.java.lang.ReflectiveOperationException | _: _root_.java.lang.LinkageError =>
            }
            new _root_.java.lang.RuntimeException("the function threw " + name + ": " + message)
        }

        private def copyBack(arg: _root_.scala.Any, changed: _root_.scala.Any): _root_.scala.Unit = (arg, changed) match {
            case (buffer: _root_.scala.collection.mutable.Buffer[_], now: _root_.scala.collection.Seq[_]) =>
                buffer.asInstanceOf[_root_.scala.collection.mutable.Buffer[_root_.scala.Any]].clear()
                buffer.asInstanceOf[_root_.scala.collection.mutable.Buffer[_root_.scala.Any]] ++= now
            case (map: _root_.scala.collection.mutable.Map[_, _], now: _root_.scala.collection.Map[_, _]) =>
                val into = map.asInstanceOf[_root_.scala.collection.mutable.Map[_root_.scala.Any, _root_.scala.Any]]
                into.clear()
                into ++= now
            case (set: _root_.scala.collection.mutable.Set[_], now: _root_.scala.collection.Set[_]) =>
                set.asInstanceOf[_root_.scala.collection.mutable.Set[_root_.scala.Any]].clear()
                set.asInstanceOf[_root_.scala.collection.mutable.Set[_root_.scala.Any]] ++= now
            case (array: _root_.scala.AnyRef, now: _root_.scala.AnyRef) if now.getClass == array.getClass
                    && array.getClass.isArray
                    && _root_.java.lang.reflect.Array.getLength(now) == _root_.java.lang.reflect.Array.getLength(array) =>
                _root_.java.lang.System.arraycopy(now, 0, array, 0, _root_.java.lang.reflect.Array.getLength(array))
            case _ =>
        }

        // The program's side: calls read from fd 0, the entry called, one reply each on fd 1.
        def serve(params: _root_.scala.Array[_root_.java.lang.String], ret: _root_.java.lang.String,
                  entry: _root_.scala.Array[_root_.scala.Any] => _root_.scala.Any): _root_.scala.Unit = {
            val in = new _root_.java.io.BufferedInputStream(new _root_.java.io.FileInputStream(_root_.java.io.FileDescriptor.in))
            val replies = new _root_.java.io.FileOutputStream(_root_.java.io.FileDescriptor.out)
            // what the program prints goes to stderr, never among the replies (println writes to Console.out)
            _root_.java.lang.System.setOut(_root_.java.lang.System.err)
            _root_.scala.Console.withOut(_root_.java.lang.System.err) {
                replies.write(Ready.getBytes(_root_.java.nio.charset.StandardCharsets.US_ASCII))
                replies.flush()
                val result = kind(ret)
                val kinds = params.map(kind)
                while (in.read() == 'C') {
                    val args = _root_.scala.Array.tabulate[_root_.scala.Any](size(in, ':')) { i =>
                        read(in, in.read(), if (i < kinds.length) kinds(i) else AnyKind)
                    }
                    val out = new Out()
                    try {
                        out.write('R')
                        write(out, entry(args), result)
                        header(out, 'l', args.length)
                        for (i <- args.indices) write(out, args(i), kinds(i))
                    } catch {
                        case thrown: _root_.java.lang.Throwable =>
                            var known: _root_.java.lang.Class[_] = thrown.getClass
                            while (known.getClassLoader != null) known = known.getSuperclass
                            out.reset()
                            out.write('X')
                            write(out, known.getName, StringKind)
                            write(out, _root_.java.util.Objects.toString(thrown.getMessage, ""), StringKind)
                    }
                    replies.write(out.toByteArray)
                    replies.flush()
                }
            }
        }

        // "List[Tuple2[Long, Long]]" or "(Long, Long)" as a Kind; a type the wire cannot carry is refused here
        def kind(text: _root_.java.lang.String): Kind = {
            val spelled = text.replaceAll("\\s+", "")
            val at = _root_.scala.Array(0)
            val parsed = parse(spelled, at)
            if (at(0) != spelled.length) {
                throw new _root_.java.lang.IllegalArgumentException("the type " + text + " does not cross to the tests")
            }
            parsed
        }

        private def parse(spelled: _root_.java.lang.String, at: _root_.scala.Array[_root_.scala.Int]): Kind = {
            def refused = new _root_.java.lang.IllegalArgumentException("the type " + spelled + " does not cross to the tests")
            def list(close: _root_.scala.Char): _root_.scala.collection.immutable.List[Kind] = {
                val items = _root_.scala.collection.mutable.ListBuffer[Kind]()
                do {
                    at(0) += 1
                    items += parse(spelled, at)
                } while (at(0) < spelled.length && spelled.charAt(at(0)) == ',')
                if (at(0) >= spelled.length || spelled.charAt(at(0)) != close) throw refused
                at(0) += 1
                items.toList
            }
            if (at(0) < spelled.length && spelled.charAt(at(0)) == '(') {    // a tuple's own syntax
                val items = list(')')
                if (items.length < 2 || items.length > Tuples.length) throw refused
                return new Kind(Tuples(items.length - 1), items)
            }
            val start = at(0)
            while (at(0) < spelled.length && (_root_.java.lang.Character.isJavaIdentifierPart(spelled.charAt(at(0)))
                                            || spelled.charAt(at(0)) == '.')) {
                at(0) += 1
            }
            val name = spelled.substring(start, at(0)).split('.').last
            val args = if (at(0) < spelled.length && spelled.charAt(at(0)) == '[') list(']')
                       else _root_.scala.collection.immutable.Nil
            if (!(Scalars ++ Lists ++ Sets ++ Maps ++ Tuples ++ _root_.scala.collection.immutable.Set("Option",
                    "Either")).contains(name) || (name == "Array" && !ArrayItems.contains(args.headOption.fold("")(_.name)))) {
                throw new _root_.java.lang.IllegalArgumentException("a " + spelled.substring(start, at(0))
                                                                    + " does not cross to the tests")
            }
            new Kind(name, args)
        }

        // the Kind of a value typed Any: its own class's
        private def kindOf(value: _root_.scala.Any): Kind = new Kind(value match {
            case _: _root_.scala.Long => "Long"
            case _: _root_.scala.Int => "Int"
            case _: _root_.scala.Short => "Short"
            case _: _root_.scala.Byte => "Byte"
            case _: _root_.scala.math.BigInt => "BigInt"
            case _: _root_.java.math.BigInteger => "BigInteger"
            case _: _root_.scala.Double => "Double"
            case _: _root_.scala.Float => "Float"
            case _: _root_.scala.Boolean => "Boolean"
            case _: _root_.scala.Char => "Char"
            case _: _root_.java.lang.String => "String"
            case _: _root_.scala.Unit => "Unit"
            case _: _root_.scala.Option[_] => "Option"
            case _: _root_.scala.util.Either[_, _] => "Either"
            case _: _root_.scala.collection.Map[_, _] => "Map"
            case _: _root_.scala.collection.Set[_] => "Set"
            case _: _root_.scala.collection.Seq[_] => "List"
            case array: _root_.scala.AnyRef if array.getClass.isArray => "List"
            case product: _root_.scala.Product if tupleOf(product) => Tuples(product.productArity - 1)
            case _ => throw new _root_.java.lang.ClassCastException("a " + value.getClass.getName
                                                                    + " does not cross to the tests")
        }, _root_.scala.collection.immutable.Nil)

        private def tupleOf(product: _root_.scala.Product): _root_.scala.Boolean = product match {
            case _: _root_.scala.Tuple1[_] | _: _root_.scala.Tuple2[_, _] | _: _root_.scala.Tuple3[_, _, _]
                 | _: _root_.scala.Tuple4[_, _, _, _] | _: _root_.scala.Tuple5[_, _, _, _, _]
                 | _: _root_.scala.Tuple6[_, _, _, _, _, _] | _: _root_.scala.Tuple7[_, _, _, _, _, _, _]
                 | _: _root_.scala.Tuple8[_, _, _, _, _, _, _, _] | _: _root_.scala.Tuple9[_, _, _, _, _, _, _, _, _] => true
            case _ => false
        }

        def write(out: Out, value: _root_.scala.Any, kind: Kind): _root_.scala.Unit = kind.name match {
            case "Option" => value.asInstanceOf[_root_.scala.Option[_]] match {
                case _root_.scala.Some(item) => write(out, item, kind.arg(0))
                case _ => out.write('N')
            }
            case "Unit" => value.asInstanceOf[_root_.scala.runtime.BoxedUnit]; out.write('N')
            case _ if value == null => out.write('N')
            case "Any" | "AnyVal" | "AnyRef" => write(out, value, kindOf(value))
            case "Long" => text(out, "i" + value.asInstanceOf[_root_.scala.Long] + ";")
            case "Int" => text(out, "i" + value.asInstanceOf[_root_.scala.Int] + ";")
            case "Short" => text(out, "i" + value.asInstanceOf[_root_.scala.Short] + ";")
            case "Byte" => text(out, "i" + value.asInstanceOf[_root_.scala.Byte] + ";")
            case "BigInt" => text(out, "i" + value.asInstanceOf[_root_.scala.math.BigInt] + ";")
            case "BigInteger" => text(out, "i" + value.asInstanceOf[_root_.java.math.BigInteger] + ";")
            case "Double" => bits(out, value.asInstanceOf[_root_.scala.Double])
            case "Float" => bits(out, value.asInstanceOf[_root_.scala.Float].toDouble)
            case "Boolean" => out.write(if (value.asInstanceOf[_root_.scala.Boolean]) 'T' else 'F')
            case "Char" => bytes(out, 'c', value.asInstanceOf[_root_.scala.Char].toString)
            case "String" => bytes(out, 's', value.asInstanceOf[_root_.java.lang.String])
            case "Either" => value.asInstanceOf[_root_.scala.util.Either[_, _]] match {    // (right?, its value)
                case _root_.scala.util.Left(item) => header(out, 't', 2); out.write('F'); write(out, item, kind.arg(0))
                case _root_.scala.util.Right(item) => header(out, 't', 2); out.write('T'); write(out, item, kind.arg(1))
            }
            case name if Lists(name) => items(out, 'l', value match {
                case array: _root_.scala.AnyRef if array.getClass.isArray =>
                    _root_.scala.collection.immutable.Vector.tabulate(_root_.scala.runtime.ScalaRunTime.array_length(array))(
                        _root_.scala.runtime.ScalaRunTime.array_apply(array, _))
                case _ => value.asInstanceOf[_root_.scala.collection.Seq[_]]
            }, kind.arg(0))
            case name if Sets(name) => items(out, 'e', value.asInstanceOf[_root_.scala.collection.Set[_]], kind.arg(0))
            case name if Maps(name) =>
                val map = value.asInstanceOf[_root_.scala.collection.Map[_, _]]
                header(out, 'm', map.size)
                map.foreach { case (key, item) =>
                    write(out, key, kind.arg(0))
                    write(out, item, kind.arg(1))
                }
            case name =>     // a tuple of its name's arity
                val tuple = value.asInstanceOf[_root_.scala.Product]
                if (!tupleOf(tuple) || tuple.productArity != Tuples.indexOf(name) + 1) {
                    throw new _root_.java.lang.ClassCastException("a " + value.getClass.getName + " is no " + name)
                }
                header(out, 't', tuple.productArity)
                for (i <- 0 until tuple.productArity) write(out, tuple.productElement(i), kind.arg(i))
        }

        private def items(out: Out, tag: _root_.scala.Char, items: _root_.scala.collection.Iterable[_], kind: Kind): _root_.scala.Unit = {
            header(out, tag, items.size)
            for (item <- items) write(out, item, kind)
        }

        private def header(out: Out, tag: _root_.scala.Char, count: _root_.scala.Int): _root_.scala.Unit =
            text(out, tag.toString + count + ":")

        private def bits(out: Out, value: _root_.scala.Double): _root_.scala.Unit =
            text(out, _root_.java.lang.String.format("d%016x",
                _root_.java.lang.Long.valueOf(_root_.java.lang.Double.doubleToRawLongBits(value))))

        private def bytes(out: Out, tag: _root_.scala.Char, value: _root_.java.lang.String): _root_.scala.Unit = {
            val data = value.getBytes(_root_.java.nio.charset.StandardCharsets.UTF_8)
            header(out, tag, data.length)
            out.write(data)
        }

        private def text(out: Out, ascii: _root_.java.lang.String): _root_.scala.Unit =
            out.write(ascii.getBytes(_root_.java.nio.charset.StandardCharsets.US_ASCII))

        // One value whose tag has been read, as `kind` declares it.
        def read(in: In, tag: _root_.scala.Int, kind: Kind): _root_.scala.Any = {
            val name = kind.name
            val any = name == "Any" || name == "AnyVal" || name == "AnyRef"
            def refused = new _root_.java.lang.IllegalStateException("a value tagged '" + tag.toChar
                                                                      + "' where the declared type is " + name)
            if (name == "Option") {
                return if (tag == 'N' || tag == 'U') _root_.scala.None else _root_.scala.Some(read(in, tag, kind.arg(0)))
            }
            tag match {
                case 'N' | 'U' =>
                    if (name == "Unit") ()
                    else if (!Values(name)) null
                    else throw refused
                case 'T' | 'F' => if (any || name == "Boolean") tag == 'T' else throw refused
                case 'i' =>
                    val digits = until(in, ';')
                    try {
                        name match {
                            case "Long" => digits.toLong
                            case "Int" => digits.toInt
                            case "Short" => digits.toShort
                            case "Byte" => digits.toByte
                            case "BigInt" => _root_.scala.math.BigInt(digits)
                            case "BigInteger" => new _root_.java.math.BigInteger(digits)
                            // MultiPL-E's Scala integers are Long
                            case _ if any => val big = _root_.scala.math.BigInt(digits); if (big.isValidLong) big.toLong else big
                            case _ => throw refused
                        }
                    } catch {
                        case _: _root_.java.lang.NumberFormatException =>
                            throw new _root_.java.lang.IllegalStateException("the integer " + digits + " is no " + name)
                    }
                case 'd' =>
                    val hex = new _root_.java.lang.String(exactly(in, 16), _root_.java.nio.charset.StandardCharsets.US_ASCII)
                    val value = try {
                        _root_.java.lang.Double.longBitsToDouble(_root_.java.lang.Long.parseUnsignedLong(hex, 16))
                    } catch {
                        case _: _root_.java.lang.NumberFormatException =>
                            throw new _root_.java.lang.IllegalStateException("a float that is not 16 hex digits")
                    }
                    // MultiPL-E's Scala floats are Float: typed Any, a float a Float holds exactly is one
                    if (name == "Double" || (any && value.toFloat.toDouble != value && !value.isNaN)) value
                    else if (name == "Float" || any) value.toFloat
                    else throw refused
                case 's' | 'c' =>
                    val text = new _root_.java.lang.String(exactly(in, size(in, ':')), _root_.java.nio.charset.StandardCharsets.UTF_8)
                    if (tag == 's' && (any || name == "String")) text
                    else if (tag == 'c' && (any || name == "Char") && text.length == 1) text.charAt(0)
                    else throw refused
                case 'l' | 'e' if any || (if (tag == 'l') Lists(name) else Sets(name)) =>
                    val items: Items = _root_.scala.collection.immutable.Vector.fill(size(in, ':'))(read(in, in.read(), kind.arg(0)))
                    if (tag == 'e') built(if (any) "Set" else name, items)
                    else if (name == "Array") array(items, kind.arg(0))
                    else built(if (any) "List" else name, items)
                case 'm' if any || Maps(name) =>
                    val pairs = _root_.scala.collection.immutable.Vector.fill(size(in, ':')) {
                        val key = read(in, in.read(), kind.arg(0))
                        (key, read(in, in.read(), kind.arg(1)))
                    }
                    if (name == "HashMap") _root_.scala.collection.mutable.HashMap[_root_.scala.Any, _root_.scala.Any](pairs: _*)
                    else Map[_root_.scala.Any, _root_.scala.Any](pairs: _*)
                case 't' =>
                    val count = size(in, ':')
                    if (name == "Either" && count == 2) {
                        val right = in.read()
                        if (right != 'T' && right != 'F') throw refused
                        if (right == 'T') _root_.scala.util.Right(read(in, in.read(), kind.arg(1)))
                        else _root_.scala.util.Left(read(in, in.read(), kind.arg(0)))
                    } else if ((any && count >= 1 && count <= Tuples.length) || Tuples.indexOf(name) + 1 == count) {
                        tuple(_root_.scala.collection.immutable.Vector.tabulate(count)(i => read(in, in.read(), kind.arg(i))))
                    } else throw refused
                case -1 => throw new _root_.java.io.EOFException("the other side ended in the middle of a value")
                case 'l' | 'e' | 'm' => throw refused
                case _ => throw new _root_.java.lang.IllegalStateException("'" + tag.toChar + "' is no tag of the wire format")
            }
        }

        // a collection the prompt names, as its imports bind the name
        private def built(name: _root_.java.lang.String, items: Items): _root_.scala.Any = name match {
            case "List" => List[_root_.scala.Any](items: _*)
            case "Seq" => Seq[_root_.scala.Any](items: _*)
            case "IndexedSeq" => IndexedSeq[_root_.scala.Any](items: _*)
            case "Vector" => items
            case "ArrayBuffer" => _root_.scala.collection.mutable.ArrayBuffer[_root_.scala.Any](items: _*)
            case "ListBuffer" => _root_.scala.collection.mutable.ListBuffer[_root_.scala.Any](items: _*)
            case "Set" => Set[_root_.scala.Any](items: _*)
            case _ => _root_.scala.collection.mutable.HashSet[_root_.scala.Any](items: _*)
        }

        private def array(items: Items, kind: Kind): _root_.scala.AnyRef = {
            val array = _root_.java.lang.reflect.Array.newInstance(ArrayItems(kind.name), items.length)
            for (i <- items.indices) _root_.scala.runtime.ScalaRunTime.array_update(array, i, items(i))
            array
        }

        private def tuple(items: Items): _root_.scala.Product = items match {
            case _root_.scala.collection.immutable.Vector(a) => _root_.scala.Tuple1(a)
            case _root_.scala.collection.immutable.Vector(a, b) => _root_.scala.Tuple2(a, b)
            case _root_.scala.collection.immutable.Vector(a, b, c) => _root_.scala.Tuple3(a, b, c)
            case _root_.scala.collection.immutable.Vector(a, b, c, d) => _root_.scala.Tuple4(a, b, c, d)
            case _root_.scala.collection.immutable.Vector(a, b, c, d, e) => _root_.scala.Tuple5(a, b, c, d, e)
            case _root_.scala.collection.immutable.Vector(a, b, c, d, e, f) => _root_.scala.Tuple6(a, b, c, d, e, f)
            case _root_.scala.collection.immutable.Vector(a, b, c, d, e, f, g) => _root_.scala.Tuple7(a, b, c, d, e, f, g)
            case _root_.scala.collection.immutable.Vector(a, b, c, d, e, f, g, h) => _root_.scala.Tuple8(a, b, c, d, e, f, g, h)
            case _ => _root_.scala.Tuple9(items(0), items(1), items(2), items(3), items(4), items(5), items(6), items(7), items(8))
        }

        private def until(in: In, end: _root_.scala.Char): _root_.java.lang.String = {
            val digits = new _root_.java.lang.StringBuilder()
            var c = in.read()
            while (c != end) {
                if (c < 0 || digits.length > 100000) {
                    throw new _root_.java.io.EOFException("a number without its end in the wire format")
                }
                digits.append(c.toChar)
                c = in.read()
            }
            digits.toString
        }

        private def size(in: In, end: _root_.scala.Char): _root_.scala.Int = {
            val digits = until(in, end)
            val count = try digits.toInt catch { case _: _root_.java.lang.NumberFormatException => -1 }
            if (count < 0) throw new _root_.java.lang.IllegalStateException("the count " + digits + " is no count")
            count
        }

        private def exactly(in: In, count: _root_.scala.Int): _root_.scala.Array[_root_.scala.Byte] = {
            val data = in.readNBytes(count)
            if (data.length != count) throw new _root_.java.io.EOFException("the other side ended in the middle of a value")
            data
        }
    }
