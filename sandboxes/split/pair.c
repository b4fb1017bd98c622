/*
 * The tests' process and the program's, side by side in one sandbox (docs/guards.md, "Two processes").
 *
 * usage: pair [--may-fork] -- TESTS_ARGV... -- PROGRAM_ARGV...
 *        pair --confine -- ARGV...      (ARGV in `p/`, confined by Landlock alone: the program's compile)
 * Run in the workspace: the tests run in its `t/`, the program in its `p/`. The tests get fd 3 (calls, written)
 * and fd 4 (replies, read); the program fd 0 (calls) and fd 1 (replies); both share this process's stderr, and the
 * tests its stdout. The program is then confined before its exec:
 *  - Landlock: it may reach everything under `/` except the workspace, and the workspace's `p/`: never `t/`
 *    (the tests' files). Landlock also keeps it from tracing or attaching to any process outside its domain (the
 *    tests', this one's: ptrace, /proc/PID/mem, cwd, root, exe, what their descriptors open), and, where the kernel
 *    scopes them (ABI 6), from signalling them or reaching their abstract sockets. What /proc shows any process of
 *    the same user (environ, maps, cmdline, status) stays readable: nothing of the tests is put there.
 *  - seccomp, unless --may-fork: no new process (fork, vfork, clone without CLONE_THREAD; clone3 answers ENOSYS,
 *    so threads fall back to clone), no ptrace and no process_vm_readv/writev.
 * Once the tests have exited, the program is killed; this exits as the tests did (128 + N for signal N; 1 for
 * SIGKILL, which the program may have sent), or 128 + SIGXCPU where the program ran out of CPU time. A program
 * that fails first is said so on stderr (PROGRAM_ENDED), with how. A failure to set up exits 125
 * (the sandbox's, not the program's: nothing of the program has run), and so does a child that could not be started.
 * Built by the backends at start: gcc -O2 -static; the process backend also builds it as a library whose
 * confine_files and confine_processes its Python zygote calls in a split's two forks (zygote_main.py).
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/landlock.h>
#include <linux/seccomp.h>
#include <sched.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#define TESTS_DIR "t"
#define PROGRAM_DIR "p"
#define SETUP_FAILED 125
#define PROGRAM_ENDED "pair: the program ended before its tests did"
#define LOW_FD 8               /* a child's descriptors are moved above those it places (at most 5) */
/* Landlock's ABI, stated here: Debian 12's headers stop at ABI 2, and the kernel a sandbox runs on may be newer. */
#define FS_TRUNCATE (1ULL << 14)        /* ABI 3 */
#define FS_IOCTL_DEV (1ULL << 15)       /* ABI 5 */
#define SCOPE_ABSTRACT_UNIX_SOCKET 1    /* ABI 6 */
#define SCOPE_SIGNAL 2                  /* ABI 6 */

struct ruleset_attr {    /* landlock_ruleset_attr as of ABI 6; an older kernel takes it with the newer fields 0 */
    __u64 handled_access_fs, handled_access_net, scoped;
};

static int setup_pipe = -1;    /* in a child until its exec: a byte on it tells pair the exec never happened */

static void fail(const char *what) {
    fprintf(stderr, "pair: %s: %s\n", what, strerror(errno));
    if (setup_pipe >= 0 && write(setup_pipe, "!", 1) != 1) _exit(SETUP_FAILED);
    _exit(SETUP_FAILED);
}

/* fds[i] becomes descriptor i; every other one is closed but the setup pipe (close-on-exec). */
static void place(const int *fds, int count) {
    int moved[8];
    for (int i = 0; i < count; i++)
        if ((moved[i] = fcntl(fds[i], F_DUPFD_CLOEXEC, LOW_FD)) < 0) fail("dup");
    for (int i = 0; i < count; i++)
        if (dup2(moved[i], i) < 0) fail("dup2");
    if ((setup_pipe > count && syscall(SYS_close_range, count, setup_pipe - 1, 0) != 0)
            || syscall(SYS_close_range, setup_pipe + 1, ~0U, 0) != 0) fail("close_range");
}

static __u64 fs_rights(int abi) {
    __u64 rights = (LANDLOCK_ACCESS_FS_MAKE_SYM << 1) - 1;   /* ABI 1: EXECUTE .. MAKE_SYM */
    if (abi >= 2) rights |= LANDLOCK_ACCESS_FS_REFER;
    if (abi >= 3) rights |= FS_TRUNCATE;
    if (abi >= 5) rights |= FS_IOCTL_DEV;
    return rights;
}

static __u64 file_rights(__u64 rights) {   /* what a rule on a file (not a directory) may grant */
    return rights & (LANDLOCK_ACCESS_FS_EXECUTE | LANDLOCK_ACCESS_FS_WRITE_FILE | LANDLOCK_ACCESS_FS_READ_FILE
                     | FS_TRUNCATE | FS_IOCTL_DEV);
}

static void allow(int ruleset, const char *path, __u64 rights) {
    int fd = open(path, O_PATH | O_CLOEXEC);
    if (fd < 0) return;                  /* a dangling link or an entry gone meanwhile: nothing to allow */
    struct stat st;
    if (fstat(fd, &st) != 0) fail("stat");
    struct landlock_path_beneath_attr rule = {
        .allowed_access = S_ISDIR(st.st_mode) ? rights : file_rights(rights), .parent_fd = fd};
    if (syscall(SYS_landlock_add_rule, ruleset, LANDLOCK_RULE_PATH_BENEATH, &rule, 0) != 0) fail("landlock rule");
    close(fd);
}

/* Everything under / but the workspace (the working directory), and the workspace's PROGRAM_DIR. */
void confine_files(void) {
    int abi = syscall(SYS_landlock_create_ruleset, NULL, 0, LANDLOCK_CREATE_RULESET_VERSION);
    if (abi < 1) fail("Landlock is not available");
    struct ruleset_attr attr = {.handled_access_fs = fs_rights(abi),
                                .scoped = abi >= 6 ? SCOPE_SIGNAL | SCOPE_ABSTRACT_UNIX_SOCKET : 0};
    int ruleset = syscall(SYS_landlock_create_ruleset, &attr, sizeof attr, 0);
    if (ruleset < 0) fail("landlock ruleset");
    char workspace[4096], path[4200];
    if (getcwd(workspace, sizeof workspace) == NULL) fail("getcwd");
    if (workspace[0] != '/' || strchr(workspace + 1, '/') != NULL) {
        errno = EINVAL;
        fail("the workspace must be a directory of / itself");
    }
    DIR *root = opendir("/");
    if (root == NULL) fail("opendir /");
    for (struct dirent *entry; (entry = readdir(root)) != NULL;) {
        if (strcmp(entry->d_name, ".") == 0 || strcmp(entry->d_name, "..") == 0
                || strcmp(entry->d_name, workspace + 1) == 0) continue;
        snprintf(path, sizeof path, "/%s", entry->d_name);
        allow(ruleset, path, attr.handled_access_fs);
    }
    closedir(root);
    snprintf(path, sizeof path, "%s/%s", workspace, PROGRAM_DIR);
    allow(ruleset, path, attr.handled_access_fs);
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) fail("no_new_privs");
    if (syscall(SYS_landlock_restrict_self, ruleset, 0) != 0) fail("landlock restrict");
    close(ruleset);
}

#define DENY(nr, errno_value) \
    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (nr), 0, 1), BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | (errno_value))

void confine_processes(void) {
    struct sock_filter filter[] = {
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
#if defined(__x86_64__)
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 1, 0),
#elif defined(__aarch64__)
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_AARCH64, 1, 0),
#endif
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS),
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
#ifdef SYS_fork
        DENY(SYS_fork, EPERM),
        DENY(SYS_vfork, EPERM),
#endif
        DENY(SYS_clone3, ENOSYS),
        DENY(SYS_ptrace, EPERM),
        DENY(SYS_process_vm_readv, EPERM),
        DENY(SYS_process_vm_writev, EPERM),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_clone, 0, 3),
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, args[0])),
        BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, CLONE_THREAD, 1, 0),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
    };
    struct sock_fprog program = {.len = sizeof filter / sizeof filter[0], .filter = filter};
    if (syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &program) != 0) fail("seccomp");
}

/* A child running ARGV in DIR with FDS as its first descriptors, the program's confined. Returns once it has exec'd;
 * where it could not, pair exits SETUP_FAILED (killing `sibling`, if any): nothing of the program ran, the sandbox
 * failed. */
static pid_t start(char **argv, const char *dir, const int *fds, int count, int may_fork, int confined,
                   pid_t sibling) {
    int started[2];
    if (pipe2(started, O_CLOEXEC) != 0) fail("pipe");
    pid_t pid = fork();
    if (pid < 0) fail("fork");
    if (pid == 0) {
        if ((setup_pipe = fcntl(started[1], F_DUPFD_CLOEXEC, LOW_FD)) < 0) fail("dup");
        if (prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) != 0) fail("pdeathsig");
        if (confined) confine_files();      /* from the workspace, before entering p/ */
        if (chdir(dir) != 0) fail(dir);
        place(fds, count);
        if (confined && !may_fork) confine_processes();
        execvp(argv[0], argv);
        fail(argv[0]);
    }
    close(started[1]);
    char byte;
    ssize_t got = read(started[0], &byte, 1);
    close(started[0]);
    if (got > 0) {
        if (sibling > 0) kill(sibling, SIGKILL);
        _exit(SETUP_FAILED);
    }
    return pid;
}

/* How the program failed while its tests ran, for the reader of the tests' failure (an exit 0 shows there already:
 * the tests' stub says the program ended during a call). */
static void describe(int status) {
    if (WIFSIGNALED(status))
        fprintf(stderr, "%s: killed by signal %d (%s)\n", PROGRAM_ENDED, WTERMSIG(status), strsignal(WTERMSIG(status)));
    else if (WEXITSTATUS(status) != 0)
        fprintf(stderr, "%s: exit status %d\n", PROGRAM_ENDED, WEXITSTATUS(status));
}

int main(int argc, char **argv) {
    if (argc > 3 && strcmp(argv[1], "--confine") == 0 && strcmp(argv[2], "--") == 0) {
        confine_files();
        if (chdir(PROGRAM_DIR) != 0) fail(PROGRAM_DIR);
        execvp(argv[3], argv + 3);
        fail(argv[3]);
    }
    int may_fork = 0, i = 1;
    if (i < argc && strcmp(argv[i], "--may-fork") == 0) may_fork = 1, i++;
    if (i >= argc || strcmp(argv[i], "--") != 0) { errno = EINVAL; fail("usage: pair [--may-fork] -- TESTS -- PROGRAM"); }
    char **tests = argv + i + 1, **program = NULL;
    for (int j = i + 1; j < argc; j++)
        if (strcmp(argv[j], "--") == 0) { argv[j] = NULL; program = argv + j + 1; break; }
    if (program == NULL || tests[0] == NULL || program[0] == NULL) { errno = EINVAL; fail("usage"); }
    int calls[2], replies[2], null = open("/dev/null", O_RDONLY | O_CLOEXEC);
    if (null < 0 || pipe2(calls, O_CLOEXEC) != 0 || pipe2(replies, O_CLOEXEC) != 0) fail("pipe");
    signal(SIGPIPE, SIG_DFL);
    int tests_fds[5] = {null, 1, 2, calls[1], replies[0]};
    pid_t tests_pid = start(tests, TESTS_DIR, tests_fds, 5, 1, 0, 0);
    int program_fds[3] = {calls[0], replies[1], 2};
    pid_t program_pid = start(program, PROGRAM_DIR, program_fds, 3, may_fork, 1, tests_pid);
    close(calls[0]), close(calls[1]), close(replies[0]), close(replies[1]), close(null);
    int status, tests_status = SETUP_FAILED << 8, tests_ended = 0, program_out_of_cpu = 0;
    for (;;) {
        pid_t done = waitpid(-1, &status, 0);
        if (done < 0) {
            if (errno == EINTR) continue;
            break;
        }
        if (done == program_pid && !tests_ended) {
            describe(status);
            program_out_of_cpu = WIFSIGNALED(status) && WTERMSIG(status) == SIGXCPU;
        }
        if (done == tests_pid) {
            tests_status = status, tests_ended = 1;
            kill(program_pid, SIGKILL);
        }
    }
    /* The program ran out of CPU time (its RLIMIT_CPU) while its tests ran: the run's CPU-time death, as one process
     * spinning in the function would have been, whatever the tests made of the call that never came back. */
    if (program_out_of_cpu) return 128 + SIGXCPU;
    /* The tests killed by SIGKILL: where the kernel does not scope signals (Landlock ABI < 6) the program may have sent
     * it, so it is the tests' failure (exit 1), never a sandbox death that runs the step again with the program's
     * files from this try still in p/; the OOM killer's is the memory cgroup's count, which the policy reads first. */
    if (WIFSIGNALED(tests_status) && WTERMSIG(tests_status) == SIGKILL) {
        fprintf(stderr, "pair: the tests were killed (SIGKILL)\n");
        return 1;
    }
    return WIFSIGNALED(tests_status) ? 128 + WTERMSIG(tests_status) : WEXITSTATUS(tests_status);
}
