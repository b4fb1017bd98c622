    // The tests' Main: the marker once they have returned.
    static partial class Tests_ {
        public static void Main(string[] args) {
            TestsMain_(args);
            global::System.Console.Error.WriteLine("{marker}");
            global::System.Console.Error.Flush();
        }
    }
    // What the tests' Debug.Assert is: a failed assertion throws, whatever the program did to the trace listeners.
    static class Assertions_ {
        public static void Assert(bool condition,
                                  [global::System.Runtime.CompilerServices.CallerLineNumber] int line = 0) {
            if (!condition) throw new global::System.Exception("Debug.Assert failed: main.cs line " + line);
        }
        public static void Assert(bool condition, string message,
                                  [global::System.Runtime.CompilerServices.CallerLineNumber] int line = 0) {
            if (!condition) throw new global::System.Exception("Debug.Assert failed: main.cs line " + line + ": " + message);
        }
    }
}
