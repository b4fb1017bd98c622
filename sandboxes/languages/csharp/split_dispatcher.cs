
    // The program's side of the split (docs/guards.md, "Two processes"): the tests' calls of the entry function. Main
    // is a class's of its own, so that the class the prompt opens is first used (its static constructor run) once
    // stdout is moved.
    static class RewardDispatcher_ {
        static void Main() {
            RewardWire_.Serve(new global::System.Type[] {@@kinds@@}, reward_call_ => @@entry@@(@@decoded@@));
        }
    }

@@codec@@
}
