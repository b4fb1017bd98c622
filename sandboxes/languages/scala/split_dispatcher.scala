
    // The program's side of the split (docs/guards.md, "Two processes"): the tests' calls of the entry function.
    def main(rewardArgs: _root_.scala.Array[_root_.java.lang.String]): _root_.scala.Unit =
        RewardWire_.serve(_root_.scala.Array[_root_.java.lang.String](@@kinds@@), "@@ret@@",
                          reward_call => @@entry@@(@@decoded@@))

@@codec@@
}
