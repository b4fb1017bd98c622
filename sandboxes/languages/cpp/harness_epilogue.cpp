(), reward_tests_status_{0}).value); }
#include <cstdio>
int reward_tests_done_(int status) {
    if (status == 0) {
        std::fputs("{marker}\n", stderr);
        std::fflush(stderr);
    }
    return status;
}
