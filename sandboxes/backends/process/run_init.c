/*
 * pid 1 of a zygote run's pid namespace (zygote_main.py): it adopts and reaps whatever the program leaves behind,
 * until the zygote, once the program has exited, kills it, which takes the rest of the namespace along.
 * The program sees it as pid 1: it must not be traceable, for its /proc entries lead to the zygote's mounts (it
 * also keeps the zygote's capabilities, which the program lacks). A failure to set up exits 125.
 * Built by sandboxes/backends/process/backend.py at start: gcc -O2 -static.
 */
#include <signal.h>
#include <stddef.h>
#include <sys/prctl.h>
#include <sys/wait.h>

int main(void) {
    sigset_t children;
    sigemptyset(&children);
    sigaddset(&children, SIGCHLD);
    if (prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) != 0 || sigprocmask(SIG_BLOCK, &children, NULL) != 0) return 125;
    for (;;) {
        siginfo_t info;
        if (sigwaitinfo(&children, &info) < 0) continue;
        while (waitpid(-1, NULL, WNOHANG) > 0) {}
    }
}
