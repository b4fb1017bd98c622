public static void main(String[] reward_args_) throws Throwable {
        reward_tests_main_(reward_args_);
        System.err.println("{marker}");
        System.err.flush();
    }

    static void reward_tests_main_(String[] args)