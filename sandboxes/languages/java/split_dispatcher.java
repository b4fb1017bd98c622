    }

    // The program's side of the split (docs/guards.md, "Two processes"): the tests' calls of the entry function.
    public static void main(String[] reward_args_) throws java.io.IOException {
        RewardWire_.serve(new String[] {@@kinds@@}, "@@ret@@", reward_call_ -> @@entry@@(@@decoded@@));
    }

@@codec@@
}
