// The tests' own unit, after the prompt's declarations: their assert and the end-of-tests proof, with internal linkage
// and the C library's write and abort alone, which the program's unit cannot replace (it exports the prompt's function
// alone); no header, so that this unit compiles little more than the prompt's. A failed assertion says where in the
// tests (numbered as they came), not what: no text of the assertions goes into the binary.
#undef assert
long reward_write_(int fd, const void* text, unsigned long size) __asm__("write");
namespace {
template <unsigned long N>
[[noreturn]] void reward_assert_failed_(const char (&where)[N]) {
    reward_write_(2, where, N - 1);
    __builtin_abort();
}
struct reward_tests_status_ { int value; };
reward_tests_status_ operator,(int value, reward_tests_status_) { return {value}; }
int reward_tests_done_(int status) {
    if (status == 0) reward_write_(2, "{marker}\n", sizeof "{marker}\n" - 1);
    return status;
}
}  // namespace
#define REWARD_LINE_(line) #line
#define REWARD_AT_(line) REWARD_LINE_(line)
#define assert(e) \
    (static_cast<bool>(e) ? void(0) : reward_assert_failed_(__FILE__ ":" REWARD_AT_(__LINE__) ": assertion failed\n"))
#line 1 "tests"
