public static void Main(string[] reward_args_) {
        RewardTestsMain_(reward_args_);
        System.Console.Error.WriteLine("{marker}");
        System.Console.Error.Flush();
    }
    public static void RewardTestsMain_(string[] args)