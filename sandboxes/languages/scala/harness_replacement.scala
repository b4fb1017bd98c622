def main(rewardArgs: Array[String]): Unit = {
    rewardTestsMain(rewardArgs)
    System.err.println("{marker}")
    System.err.flush()
  }
  def rewardTestsMain(args: Array[String])