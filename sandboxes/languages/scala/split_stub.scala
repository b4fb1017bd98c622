    // The entry function, as the prompt declares it: each call crosses to the program's process, its result back.
    def @@entry@@(@@params@@) : @@ret@@ =
        RewardWire_.call(_root_.scala.Array[_root_.java.lang.String](@@kinds@@), "@@ret@@",
                         _root_.scala.Array[_root_.scala.Any](@@names@@), "@@unsupported@@").asInstanceOf[@@ret@@]

@@codec@@
