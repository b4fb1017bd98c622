struct reward_tests_status_ { int value; };
inline reward_tests_status_ operator,(int value, reward_tests_status_) { return {value}; }
int reward_tests_done_(int status);
int main() { return reward_tests_done_(([&]() {