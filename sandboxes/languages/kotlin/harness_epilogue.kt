fun main() {
    reward_tests_main_()
    System.err.println("{marker}")
    System.err.flush()
}
