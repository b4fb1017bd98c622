int main() {
    import core.stdc.stdio : fflush, fputs, stderr;
    reward_tests_main_();
    fputs("{marker}\n", stderr);
    fflush(stderr);
    return 0;
}
