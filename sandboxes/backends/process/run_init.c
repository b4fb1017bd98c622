/*
 * pid 1 of a zygote run's pid namespace (zygote_main.py): it adopts and reaps whatever the program leaves behind,
 * until the zygote, once the program has exited, sends it SIGUSR1: it then kills and reaps the rest of the namespace
 * and exits, its wait4 account holding the CPU time of every process of the run (the run's own account where there
 * are no cgroups).
 * The program sees it as pid 1: it must not be traceable, for its /proc entries lead to the zygote's mounts (it also
 * keeps the zygote's capabilities, which the program lacks). A failure to set up exits 125.
 *
 * The zygote spawns it with SIGCHLD and SIGUSR1 already blocked: the init of a pid namespace drops a signal it neither
 * blocks nor handles, and SIGUSR1 may be sent before this runs at all.
 * Raw system calls, no C library: a static glibc spends about 0.3 ms of CPU starting up (its CPU feature probes
 * trap to the hypervisor on a VM), a third of what isolating a run costs; this starts in a tenth of that.
 * Built by sandboxes/backends/process/backend.py at start: gcc -O2 -static -nostdlib.
 */
#include <asm/unistd.h>
#include <linux/prctl.h>
#include <linux/wait.h>

#define SIGCHLD_BIT (1UL << (17 - 1))
#define SIGUSR1 10
#define SIGUSR1_BIT (1UL << (SIGUSR1 - 1))
#define SIGKILL_NUMBER 9
#define SIG_BLOCK 0
#define SIGSET_BYTES 8

static long sys(long number, long a, long b, long c, long d) {
#if defined(__x86_64__)
    long result;
    register long r10 __asm__("r10") = d;
    __asm__ volatile("syscall" : "=a"(result) : "a"(number), "D"(a), "S"(b), "d"(c), "r"(r10) : "rcx", "r11", "memory");
    return result;
#elif defined(__aarch64__)
    register long x8 __asm__("x8") = number;
    register long x0 __asm__("x0") = a;
    register long x1 __asm__("x1") = b;
    register long x2 __asm__("x2") = c;
    register long x3 __asm__("x3") = d;
    __asm__ volatile("svc #0" : "+r"(x0) : "r"(x8), "r"(x1), "r"(x2), "r"(x3) : "memory");
    return x0;
#else
#error "run_init.c knows the system call convention of x86_64 and aarch64 only"
#endif
}

void _start(void) {
    unsigned long wanted = SIGCHLD_BIT | SIGUSR1_BIT;
    if (sys(__NR_prctl, PR_SET_DUMPABLE, 0, 0, 0) != 0
            || sys(__NR_rt_sigprocmask, SIG_BLOCK, (long)&wanted, 0, SIGSET_BYTES) != 0)
        sys(__NR_exit_group, 125, 0, 0, 0);
    for (;;) {
        if (sys(__NR_rt_sigtimedwait, (long)&wanted, 0, 0, SIGSET_BYTES) == SIGUSR1) {
            /* The end of the run: kill and reap everything, so that what they used adds to this process's own
             * account (the zygote's wait4 of it): a namespace whose init dies instead discards its processes'. */
            do sys(__NR_kill, -1, SIGKILL_NUMBER, 0, 0);
            while (sys(__NR_wait4, -1, 0, __WALL, 0) > 0);
            sys(__NR_exit_group, 0, 0, 0, 0);
        }
        while (sys(__NR_wait4, -1, 0, WNOHANG | __WALL, 0) > 0) {}
    }
}
