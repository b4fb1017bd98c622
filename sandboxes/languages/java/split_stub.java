@@codec@@

    // The entry function, as the prompt declares it: each call crosses to the program's process, its result back.
    @@modifiers@@@@ret@@ @@entry@@(@@params@@) {
        return (@@ret@@) RewardWire_.call(new String[] {@@kinds@@}, "@@ret@@", new Object[] {@@names@@},
                                          "@@unsupported@@");
