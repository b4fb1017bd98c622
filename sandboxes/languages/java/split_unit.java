@@prefix@@@@declaration@@ {
        throw null;     // never run: each program's own class of this name takes its place
    }
}

// The program's side's dispatcher and codec, compiled once per problem (docs/guards.md, "Two processes") against the
// class above, which only declares the entry function: at run time each program's class of that name answers. No
// lambda: its bootstrap would cost every run about what the program's own start does.
final class RewardWire_Main {
    public static void main(String[] reward_args_) throws java.io.IOException {
        RewardWire_.serve(new String[] {@@kinds@@}, "@@ret@@", new RewardWire_.Entry() {
            public Object call(Object[] reward_call_) throws Throwable {
                return @@owner@@.@@entry@@(@@decoded@@);
            }
        });
    }
}

@@codec@@
