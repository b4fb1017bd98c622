/*
 * The process backend's first exec: join the slot's cgroups, set the rlimits, become the slot's uid,
 * then run bubblewrap and reap everything it leaves. It replaces `sh -c 'echo $$ >...; ulimit ...;
 * exec setpriv ... bwrap ...'`: one static exec instead of two dynamic ones saves about 3 ms of CPU per
 * sandboxed run (measured), a quarter of the sandbox's overhead on a small program.
 *
 * Why it stays as bwrap's parent: bwrap's outer process exits as soon as the sandbox's init reports the
 * program's exit, before that init is reaped. Orphaned, the init would wait for the host's init to reap
 * it, counting against the slot's pids limit meanwhile. As a child subreaper this launcher inherits and
 * reaps it at once, and exits with bwrap's status.
 *
 * usage: launcher CGROUP_PROCS_FILE... -- CPU_S FSIZE_BYTES NOFILE NPROC AS_BYTES DATA_BYTES UID -- PROGRAM ARGS...
 * The groups (none without cgroups) are joined in the order given, first thing, so the slot's CPU accounting covers
 * the whole run. Each limit is a number or "unlimited", in the order of RLIMITS in limits.py; soft = hard, except the
 * CPU hard limit, one second above the soft one so the program first gets SIGXCPU (a CPU-time death the caller can
 * tell from a SIGKILL). UID is the slot's; the server's own (not root) leaves the uid as it is.
 * Standard streams that are pipes are handed to UID. Descriptors 0 to 4 are kept (3: bwrap's status pipe or the
 * zygote's control socket; 4: a spawned run's report pipe, for `--reap` in the sandbox), every other one is closed, and the working directory is /: the server spawns this
 * without a fork of its own, so nothing else of the server's may reach the sandbox.
 * Once everything under it is reaped, and fd 3 is a pipe, it appends {"usage": [CPU_NS, MAX_RSS_KIB]} to it: the CPU
 * time of the whole tree and its largest process, the run's own account where there are no cgroups.
 * A failure before PROGRAM starts exits 125.
 * Built by sandboxes/backends/process/backend.py at start: gcc -O2 -static.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <grp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define REPORT_FD 4   /* a spawned run's report of how its program ended (reap) */

static void fail(const char *what, const char *arg) {
    fprintf(stderr, "launcher: %s %s: %s\n", what, arg, strerror(errno));
    _exit(125);
}

static rlim_t parse_limit(const char *text) {
    if (strcmp(text, "unlimited") == 0) return RLIM_INFINITY;
    char *end;
    errno = 0;
    unsigned long long value = strtoull(text, &end, 10);
    if (errno != 0 || *end != '\0' || end == text) { errno = EINVAL; fail("bad limit", text); }
    return (rlim_t)value;
}

static void set_limit(int resource, const char *text, rlim_t hard_extra) {
    rlim_t soft = parse_limit(text);
    struct rlimit limit = {soft, soft == RLIM_INFINITY ? soft : soft + hard_extra};
    if (setrlimit(resource, &limit) != 0) fail("setrlimit", text);
}

static void write_file(const char *path, const char *text) {
    FILE *file = fopen(path, "w");
    if (file == NULL || fputs(text, file) == EOF || fclose(file) != 0) fail("cannot write", path);
}

/* A server without root runs every slot as its own uid, which RLIMIT_NPROC would then count across the whole host:
 * the kernel checks it at every level of user namespaces, against the limit each namespace's creator had. In a user
 * namespace of its own, made before the limits, the launcher's count starts from what it starts itself. */
static void own_user_namespace(uid_t uid, gid_t gid) {
    char map[64];
    if (unshare(CLONE_NEWUSER) != 0) fail("unshare", "user namespace");
    write_file("/proc/self/setgroups", "deny");
    snprintf(map, sizeof map, "%u %u 1\n", (unsigned)uid, (unsigned)uid);
    write_file("/proc/self/uid_map", map);
    snprintf(map, sizeof map, "%u %u 1\n", (unsigned)gid, (unsigned)gid);
    write_file("/proc/self/gid_map", map);
}

/* Die with `parent`: set after any uid change (which clears it); the check catches a parent already gone. */
static void die_with(pid_t parent) {
    if (prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) != 0) fail("pdeathsig", "");
    if (getppid() != parent) { errno = ESRCH; fail("parent died", ""); }
}

/* `launcher --reap PROGRAM ARGS...`: pid 1 of a spawned run's sandbox (bwrap --as-pid-1), the program its child.
 * Once the program has exited it kills and reaps everything the program left, so that their CPU time adds to its own
 * account, and so to the outer launcher's (a pid namespace whose init exits with processes left discards what they
 * used), then writes {"wait-status": STATUS} (the program's, as waitpid gave it), or {"exec-error": WHY} where it
 * could not be started, to fd 4, which the program never holds. A run cannot signal its namespace's init: no report means this init was killed from outside, and the program
 * died with its namespace, not of its own doing (sandbox_deaths.py). Exits as the program did (128 + N for signal N).
 * It runs as the program's uid, so it makes itself not dumpable first (its exec made it dumpable; the program's exec
 * makes the program dumpable again): the program can then neither trace it (and so kill it: PTRACE_O_EXITKILL is a
 * SIGKILL even an init takes) nor open its /proc/1/fd, mem or environ (its report pipe among them). */
static int reap(char **program) {
    if (prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) != 0) fail("not dumpable", "");
    int report = fcntl(REPORT_FD, F_SETFD, FD_CLOEXEC) == 0, exec_result[2];
    if (pipe2(exec_result, O_CLOEXEC) != 0) fail("pipe", "");
    pid_t child = fork();
    if (child < 0) fail("fork", program[0]);
    if (child == 0) {
        execv(program[0], program);
        int error = errno;     /* the parent reads it: a program that never started is no verdict of its own */
        if (write(exec_result[1], &error, sizeof error) != sizeof error) _exit(126);
        _exit(127);
    }
    close(exec_result[1]);
    int exec_error = 0;
    if (read(exec_result[0], &exec_error, sizeof exec_error) != sizeof exec_error) exec_error = 0;   /* it ran */
    close(exec_result[0]);
    int status, program_status = 125 << 8, ended = 0;
    for (;;) {
        if (ended) kill(-1, SIGKILL);   /* every other process of the namespace */
        pid_t done = waitpid(-1, &status, __WALL);
        if (done < 0) {
            if (errno == EINTR) continue;
            break;
        }
        if (done == child) {
            program_status = status;
            ended = 1;
        }
    }
    if (report && exec_error != 0)
        dprintf(REPORT_FD, "{\"exec-error\": \"%s: %s\"}\n", program[0], strerror(exec_error));
    else if (report)
        dprintf(REPORT_FD, "{\"wait-status\": %d}\n", program_status);
    return WIFEXITED(program_status) ? WEXITSTATUS(program_status) : 128 + WTERMSIG(program_status);
}

int main(int argc, char **argv) {
    if (argc > 2 && strcmp(argv[1], "--reap") == 0) return reap(argv + 2);
    pid_t server = getppid();
    if (close_range(REPORT_FD + 1, ~0U, 0) != 0) fail("close_range", "5");
    if (chdir("/") != 0) fail("chdir", "/");
    int i = 1;
    char pid[32];
    snprintf(pid, sizeof pid, "%d\n", (int)getpid());
    for (; i < argc && strcmp(argv[i], "--") != 0; i++) {
        FILE *procs = fopen(argv[i], "w");
        if (procs == NULL || fputs(pid, procs) == EOF || fclose(procs) != 0) fail("cannot join", argv[i]);
    }
    if (argc - i < 10 || strcmp(argv[i + 8], "--") != 0) { errno = EINVAL; fail("usage", argv[0]); }
    char **limits = argv + i + 1;
    char **program = argv + i + 9;
    set_limit(RLIMIT_CPU, limits[0], 1);
    set_limit(RLIMIT_FSIZE, limits[1], 0);
    set_limit(RLIMIT_NOFILE, limits[2], 0);
    set_limit(RLIMIT_NPROC, limits[3], 0);
    set_limit(RLIMIT_AS, limits[4], 0);
    set_limit(RLIMIT_DATA, limits[5], 0);
    set_limit(RLIMIT_CORE, "0", 0);
    uid_t uid = (uid_t)parse_limit(limits[6]);
    if (uid == 0) { errno = EINVAL; fail("refusing uid", limits[6]); }
    if (uid == getuid()) {
        own_user_namespace(uid, getgid());
    } else {
        /* The std pipes were made by the (root) server: give them to the slot uid, or reopening them
         * through /dev/stdin (fs.readFileSync("/dev/stdin"), a common idiom) fails with EACCES. */
        for (int fd = 0; fd <= 2; fd++) {
            struct stat st;
            if (fstat(fd, &st) == 0 && S_ISFIFO(st.st_mode) && fchown(fd, uid, uid) != 0) fail("chown", "std pipe");
        }
        if (setgroups(0, NULL) != 0) fail("setgroups", "");
        if (setresgid(uid, uid, uid) != 0) fail("setresgid", limits[6]);
        if (setresuid(uid, uid, uid) != 0) fail("setresuid", limits[6]);
    }
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) fail("no_new_privs", "");
    die_with(server);
    if (prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0) fail("subreaper", "");
    pid_t launcher = getpid();
    pid_t child = fork();
    if (child < 0) fail("fork", program[0]);
    if (child == 0) {
        die_with(launcher);
        execv(program[0], program);
        fail("exec", program[0]);
    }
    int status, result = 125;
    for (;;) {
        pid_t done = waitpid(-1, &status, 0);
        if (done < 0) {
            if (errno == EINTR) continue;
            break;  /* ECHILD: bwrap and everything it left are reaped */
        }
        if (done == child) result = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    }
    struct stat report;
    struct rusage usage;
    if (fstat(3, &report) == 0 && S_ISFIFO(report.st_mode) && getrusage(RUSAGE_CHILDREN, &usage) == 0) {
        long long ns = (usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) * 1000000000LL
                       + (usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) * 1000LL;
        dprintf(3, "{\"usage\": [%lld, %ld]}\n", ns, usage.ru_maxrss);
    }
    return result;
}
