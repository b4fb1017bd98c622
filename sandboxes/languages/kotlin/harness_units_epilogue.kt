fun main() {
    reward_tests_main_()
    System.err.println("{marker}")
    System.err.flush()
}

// The tests' `assert(X == Y)` compares through this, never through the program's own objects: both sides are copied
// into fresh values first, collections, maps, arrays, pairs and triples by their contents, and what they hold must be
// of the JDK's or the standard library's classes (whose equals are theirs). This package is the tests' alone: no name
// the program declares reaches it.
private fun reward_same_(left: Any?, right: Any?): Boolean = reward_plain_(left) == reward_plain_(right)

private fun reward_plain_(value: Any?): Any? {
    val type = (value ?: return null).javaClass
    val loader = type.classLoader
    return when (value) {
        is Map<*, *> -> value.entries.associateTo(HashMap<Any?, Any?>()) { reward_plain_(it.key) to reward_plain_(it.value) }
        is Set<*> -> value.mapTo(HashSet<Any?>()) { reward_plain_(it) }
        is Iterable<*> -> value.mapTo(ArrayList<Any?>()) { reward_plain_(it) }
        is Array<*> -> value.mapTo(ArrayList<Any?>()) { reward_plain_(it) }
        is Pair<*, *> -> arrayListOf("Pair", reward_plain_(value.first), reward_plain_(value.second))
        is Triple<*, *, *> ->
            arrayListOf("Triple", reward_plain_(value.first), reward_plain_(value.second), reward_plain_(value.third))
        else -> if (loader == null || loader == ClassLoader.getPlatformClassLoader() ||
                    (loader == Pair::class.java.classLoader && type.name.startsWith("kotlin."))) value
                else throw AssertionError("the tests compare plain data, not a " + type.name)
    }
}
