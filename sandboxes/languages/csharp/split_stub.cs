@@codec@@

    // The entry function, as the prompt declares it: each call crosses to the program's process, its result back.
    @@modifiers@@@@ret@@ @@entry@@(@@params@@) {
        return (@@ret@@) RewardWire_.Call(new global::System.Type[] {@@kinds@@}, typeof(@@ret@@),
                                          new object[] {@@names@@}, "@@unsupported@@");
    }
// the tests' lines numbered as the benchmark's tests are (the next line is their first)
#line 1