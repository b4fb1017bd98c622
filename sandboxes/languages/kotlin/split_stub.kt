@@codec@@

// The entry function, as the prompt declares it: each call crosses to the program's process, its result back.
fun @@entry@@(@@params@@)@@returns@@ {
    return RewardWire_.call(arrayOf<String>(@@kinds@@), "@@ret@@", arrayOf<Any?>(@@names@@), "@@unsupported@@")
}
