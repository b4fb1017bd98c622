fn main() {
    reward_tests_main_();
    eprintln!("{marker}");
}
