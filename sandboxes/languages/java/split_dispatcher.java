    }

    // The program's side of the split (docs/guards.md, "Two processes"): the tests' calls of the entry function.
    public static void main(String[] reward_args_) throws java.io.IOException {
        RewardWire_.serve(new String[] {@@kinds@@}, "@@ret@@", new RewardWire_.Entry() {
            public Object call(Object[] reward_call_) throws Throwable {
                return @@entry@@(@@decoded@@);
            }
        });
    }

@@codec@@
}
