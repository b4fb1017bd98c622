
// The program's side of the split (docs/guards.md, "Two processes"): the tests' calls of the entry function.
@Suppress("UNCHECKED_CAST")
fun main() {
    RewardWire_.serve(arrayOf<String>(@@kinds@@), "@@ret@@") { reward_call_ -> @@entry@@(@@decoded@@) }
}

@@codec@@
