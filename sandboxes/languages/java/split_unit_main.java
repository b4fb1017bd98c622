    }

    // The program's side of the split (docs/guards.md, "Two processes"): its start hands the tests' calls over to the
    // dispatcher compiled once per problem (split_unit.java).
    public static void main(String[] reward_args_) throws java.io.IOException {
        RewardWire_Main.main(reward_args_);
    }
}
