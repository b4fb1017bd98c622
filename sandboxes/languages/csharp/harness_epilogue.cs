
// The tests' Debug.Assert (a type of the global namespace outranks every imported one). As Mono's, a failed assertion
// is reported and the tests go on (a try around it catches nothing); then the tests' Main exits 1, so that their exit
// status says it, not a text on the stderr the program shares.
static class Debug {
    internal static bool Failed;

    public static void Assert(bool condition,
                              [global::System.Runtime.CompilerServices.CallerLineNumber] int line = 0) {
        Assert(condition, "", line);
    }

    public static void Assert(bool condition, string message,
                              [global::System.Runtime.CompilerServices.CallerLineNumber] int line = 0) {
        if (condition) return;
        Failed = true;
        global::System.Console.Error.WriteLine("Debug.Assert failed: line " + line + " of the tests"
                                               + (message == "" ? "" : ": " + message));
    }
}
