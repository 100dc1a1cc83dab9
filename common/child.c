/* SPDX-License-Identifier: MIT */
/*
 * The child-process runner.  Children are started with posix_spawn through
 * the ascendopt-exec helper (which sets rlimits), optionally inside a
 * bubblewrap sandbox, each in its own process group.  A pidfd on the libevent
 * base reports the exit, stdout and stderr are read through non-blocking
 * pipes up to a cap, and a timer kills the whole group at the deadline.
 * Nothing here ever waits on a child from the event loop.
 */
#include "common.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <event2/event.h>

#ifndef ASCENDOPT_LIBEXECDIR
#define ASCENDOPT_LIBEXECDIR "/usr/local/libexec/ascendopt"
#endif

#if defined(__SANITIZE_ADDRESS__)
#define BUILT_WITH_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define BUILT_WITH_ASAN 1
#endif
#endif

#define DEFAULT_OUTPUT_CAP    (1u << 20)
#define DEFAULT_MAX_CHILDREN  256
#define TRUNCATION_MARKER_MAX 96
/* Upper bound on argv entries we add around the user's argv. */
#define EXTRA_ARGS_MAX 80

extern char **environ;

struct child_runner {
        struct event_base *base;
        char *exec_helper;
        char *bwrap; /* NULL when no usable sandbox */
        bool userns; /* the sandbox runs as an unprivileged uid in a user namespace */
        bool
            allow_unsandboxed; /* children asking for a sandbox may run without when there is none */
        size_t max_children;
        size_t running;
        struct child *children; /* doubly linked list of running children */
        /* children with spec->throttled: at most max_throttled run, the rest wait in order */
        size_t max_throttled; /* 0: no limit */
        size_t throttled_running;
        size_t waiting;
        struct child *waiting_head, *waiting_tail; /* singly linked through next */
};

struct stream {
        int fd;
        struct event *event;
        struct child_output *output;
        size_t cap;
};

struct child {
        struct child_runner *runner;
        struct child *prev, *next;
        pid_t pid;
        int pidfd;
        struct event *exit_event;
        struct event *timer;
        struct stream out, err;
        struct timespec started;
        uint64_t cpu_limit;
        child_done_fn done;
        void *userdata;
        struct child_result result;
        bool throttled;
        struct saved_spec *saved; /* while waiting for a throttled slot */
        struct event *report;     /* reports a waiting child that never started */
};

/* A deep copy of a spec, for a child that starts later than child_start returns. */
struct saved_spec {
        struct child_spec spec;
        char **argv, **envp, **ro_paths;
        char *cwd, *sandbox_dir;
};

static void strv_free(char **v)
{
        for (size_t i = 0; v && v[i]; i++)
                free(v[i]);
        free(v);
}

/* Copies a NULL-terminated string vector; *ret is NULL for a NULL v. */
static int strv_copy(const char *const *v, char ***ret)
{
        size_t n = 0;
        char **copy;

        *ret = NULL;
        if (!v)
                return 0;
        while (v[n])
                n++;
        copy = calloc(n + 1, sizeof(*copy));
        if (!copy)
                return -ENOMEM;
        for (size_t i = 0; i < n; i++) {
                copy[i] = strdup(v[i]);
                if (!copy[i]) {
                        strv_free(copy);
                        return -ENOMEM;
                }
        }
        *ret = copy;
        return 0;
}

static struct saved_spec *saved_spec_free(struct saved_spec *s)
{
        if (!s)
                return NULL;
        strv_free(s->argv);
        strv_free(s->envp);
        strv_free(s->ro_paths);
        free(s->cwd);
        free(s->sandbox_dir);
        free(s);
        return NULL;
}

static int saved_spec_new(const struct child_spec *spec, struct saved_spec **ret)
{
        struct saved_spec *s = calloc(1, sizeof(*s));
        int r;

        if (!s)
                return -ENOMEM;
        s->spec = *spec;
        r = strv_copy(spec->argv, &s->argv);
        if (r == 0)
                r = strv_copy(spec->envp, &s->envp);
        if (r == 0)
                r = strv_copy(spec->sandbox_ro_paths, &s->ro_paths);
        if (r == 0 && spec->cwd && !(s->cwd = strdup(spec->cwd)))
                r = -ENOMEM;
        if (r == 0 && spec->sandbox_dir && !(s->sandbox_dir = strdup(spec->sandbox_dir)))
                r = -ENOMEM;
        if (r < 0) {
                saved_spec_free(s);
                return r;
        }
        s->spec.argv = (const char *const *)s->argv;
        s->spec.envp = (const char *const *)s->envp;
        s->spec.sandbox_ro_paths = (const char *const *)s->ro_paths;
        s->spec.cwd = s->cwd;
        s->spec.sandbox_dir = s->sandbox_dir;
        *ret = s;
        return 0;
}

static double seconds_since(const struct timespec *start)
{
        struct timespec now;

        clock_gettime(CLOCK_MONOTONIC, &now);
        return (double)(now.tv_sec - start->tv_sec) + (double)(now.tv_nsec - start->tv_nsec) / 1e9;
}

static bool is_executable_file(const char *path)
{
        return access(path, X_OK) == 0;
}

/* Resolves a program name against PATH, as execvp would.  Returns a new string. */
static char *resolve_program(const char *name)
{
        const char *path = getenv("PATH");
        char candidate[PATH_MAX];

        if (strchr(name, '/'))
                return is_executable_file(name) ? strdup(name) : NULL;
        if (!path)
                path = "/usr/local/bin:/usr/bin:/bin";
        while (*path) {
                const char *end = strchr(path, ':');
                size_t len = end ? (size_t)(end - path) : strlen(path);
                int n = snprintf(candidate, sizeof(candidate), "%.*s/%s", (int)len,
                                 len ? path : ".", name);
                if (n > 0 && (size_t)n < sizeof(candidate) && is_executable_file(candidate))
                        return strdup(candidate);
                if (!end)
                        break;
                path = end + 1;
        }
        return NULL;
}

struct child_limits child_limits_or_defaults(struct child_limits l)
{
        if (!l.address_space_bytes)
                l.address_space_bytes = (uint64_t)CHILD_DEFAULT_ADDRESS_SPACE_MB << 20;
        if (!l.cpu_seconds)
                l.cpu_seconds = CHILD_DEFAULT_CPU_S;
        if (!l.file_size_bytes)
                l.file_size_bytes = (uint64_t)CHILD_DEFAULT_FILE_SIZE_MB << 20;
        if (!l.processes)
                l.processes = CHILD_DEFAULT_PROCESSES;
        if (!l.scratch_bytes)
                l.scratch_bytes = (uint64_t)CHILD_DEFAULT_SCRATCH_MB << 20;
        return l;
}

const char *child_find_exec_helper(void)
{
        static char next_to_self[PATH_MAX];
        const char *env = getenv("ASCENDOPT_EXEC_HELPER");
        ssize_t n;

        if (env && *env)
                return is_executable_file(env) ? env : NULL;
        n = readlink("/proc/self/exe", next_to_self, sizeof(next_to_self) - 1);
        if (n > 0) {
                char *slash;
                next_to_self[n] = '\0';
                slash = strrchr(next_to_self, '/');
                if (slash && (size_t)(slash - next_to_self) + sizeof("/ascendopt-exec") <=
                                 sizeof(next_to_self)) {
                        strcpy(slash, "/ascendopt-exec");
                        if (is_executable_file(next_to_self))
                                return next_to_self;
                }
        }
        if (is_executable_file(ASCENDOPT_LIBEXECDIR "/ascendopt-exec"))
                return ASCENDOPT_LIBEXECDIR "/ascendopt-exec";
        return NULL;
}

static int add_arg(const char **argv, size_t *n, size_t max, const char *arg)
{
        if (*n + 1 >= max)
                return -E2BIG;
        argv[(*n)++] = arg;
        argv[*n] = NULL;
        return 0;
}

/*
 * What every sandbox sees of the host: the system's programs and
 * libraries read-only (a build and a run need no more; no /home, /run,
 * /var or /etc beyond the dynamic linker's cache), /dev and /proc of its
 * own, a small private /tmp.  On a merged-/usr system /bin, /lib... are
 * links into /usr and stay links.
 */
static const char *const system_dirs[] = { "/usr",   "/bin",   "/sbin",  "/lib",
                                           "/lib32", "/lib64", "/libx32" };
static const char *const system_files[] = { "/etc/ld.so.cache", "/etc/alternatives" };
#define SANDBOX_TMP_BYTES "268435456" /* the private /tmp, a tmpfs of 256 MiB */

/* Adds the binds and namespaces every sandbox gets to argv. */
static int add_sandbox_base(const char *bwrap, bool userns, const char **argv, size_t *n,
                            size_t max)
{
        static char links[ARRAY_SIZE(system_dirs)][PATH_MAX];
        static bool linked[ARRAY_SIZE(system_dirs)], known;
        const char *fixed[] = { bwrap,           "--unshare-all", "--die-with-parent",
                                "--new-session", "--cap-drop",    "ALL",
                                "--dev",         "/dev",          "--proc",
                                "/proc",         "--size",        SANDBOX_TMP_BYTES,
                                "--tmpfs",       "/tmp" };
        int r = 0;

        if (!known) {
                /* the system's layout does not change while we run: read it once */
                for (size_t i = 0; i < ARRAY_SIZE(system_dirs); i++) {
                        ssize_t len = readlink(system_dirs[i], links[i], sizeof(links[i]) - 1);
                        linked[i] = len > 0;
                        links[i][len > 0 ? len : 0] = '\0';
                }
                known = true;
        }
        for (size_t i = 0; !r && i < ARRAY_SIZE(fixed); i++)
                r = add_arg(argv, n, max, fixed[i]);
        if (!r && userns) {
                /* an unprivileged uid in a namespace of its own: root's files stay root's */
                const char *user[] = { "--unshare-user", "--uid", "65534", "--gid", "65534" };
                for (size_t i = 0; !r && i < ARRAY_SIZE(user); i++)
                        r = add_arg(argv, n, max, user[i]);
        }
        for (size_t i = 0; !r && i < ARRAY_SIZE(system_dirs); i++) {
                if (linked[i]) {
                        r = add_arg(argv, n, max, "--symlink");
                        if (!r)
                                r = add_arg(argv, n, max, links[i]);
                } else if (access(system_dirs[i], F_OK) == 0) {
                        r = add_arg(argv, n, max, "--ro-bind");
                        if (!r)
                                r = add_arg(argv, n, max, system_dirs[i]);
                } else {
                        continue;
                }
                if (!r)
                        r = add_arg(argv, n, max, system_dirs[i]);
        }
        for (size_t i = 0; !r && i < ARRAY_SIZE(system_files); i++) {
                if (access(system_files[i], F_OK) < 0)
                        continue;
                r = add_arg(argv, n, max, "--ro-bind");
                if (!r)
                        r = add_arg(argv, n, max, system_files[i]);
                if (!r)
                        r = add_arg(argv, n, max, system_files[i]);
        }
        return r;
}

/*
 * bubblewrap may be installed yet unusable (no user namespaces in a
 * container), so run it once at start-up, with the binds every sandbox
 * gets, first with a user namespace of its own and then without.  This
 * blocks for a few milliseconds, which is acceptable before the loop runs.
 */
static bool sandbox_works(const char *bwrap, bool userns)
{
        const char *argv[EXTRA_ARGS_MAX];
        posix_spawn_file_actions_t actions;
        size_t n = 0;
        pid_t pid;
        int status = 0, r;

        if (add_sandbox_base(bwrap, userns, argv, &n, ARRAY_SIZE(argv) - 3) < 0)
                return false;
        argv[n++] = "--";
        argv[n++] = "true";
        argv[n] = NULL;
        if (posix_spawn_file_actions_init(&actions) != 0)
                return false;
        posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
        posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, "/dev/null", O_WRONLY, 0);
        posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, "/dev/null", O_WRONLY, 0);
        r = posix_spawn(&pid, bwrap, &actions, NULL, (char *const *)argv, environ);
        posix_spawn_file_actions_destroy(&actions);
        if (r != 0)
                return false;
        while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
                ;
        return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

int child_runner_new(struct event_base *base, const struct child_runner_options *options,
                     struct child_runner **ret_runner)
{
        struct child_runner_options defaults = { 0 };
        struct child_runner *runner = NULL;
        const char *helper;
        int r;

        if (!base || !ret_runner)
                return -EINVAL;
        if (!options)
                options = &defaults;
        helper = options->exec_helper ? options->exec_helper : child_find_exec_helper();
        if (!helper || !is_executable_file(helper))
                return -ENOENT;

        runner = calloc(1, sizeof(*runner));
        if (!runner)
                return -ENOMEM;
        runner->base = base;
        runner->max_children = options->max_children ? options->max_children : DEFAULT_MAX_CHILDREN;
        runner->max_throttled = options->max_throttled;
        /* absolute: a sandbox binds it at the same path (build_argv) */
        runner->exec_helper = realpath(helper, NULL);
        if (!runner->exec_helper) {
                r = -ENOMEM;
                goto fail;
        }
        runner->allow_unsandboxed = options->allow_unsandboxed;
        if (getenv("ASCENDOPT_SANDBOX") && strcmp(getenv("ASCENDOPT_SANDBOX"), "off") == 0)
                runner->allow_unsandboxed = true;
        if (!options->bwrap || *options->bwrap) {
                char *bwrap = resolve_program(options->bwrap ? options->bwrap : "bwrap");
                if (bwrap && sandbox_works(bwrap, true)) {
                        runner->bwrap = bwrap;
                        runner->userns = true;
                } else if (bwrap && sandbox_works(bwrap, false)) {
                        runner->bwrap = bwrap;
                } else {
                        free(bwrap);
                }
        }
        *ret_runner = runner;
        return 0;
fail:
        child_runner_free(runner);
        return r;
}

const char *child_strerror(int r)
{
        return r == -EPERM ? CHILD_NO_SANDBOX_HELP : strerror(r < 0 ? -r : r);
}

bool child_runner_allows_unsandboxed(const struct child_runner *runner)
{
        return runner->allow_unsandboxed;
}

bool child_runner_has_sandbox(const struct child_runner *runner)
{
        return runner && runner->bwrap;
}

size_t child_runner_running(const struct child_runner *runner)
{
        return runner ? runner->running : 0;
}

static void output_release(struct child_output *o)
{
        free(o->data);
        o->data = NULL;
}

static void stream_close(struct stream *s)
{
        if (s->event) {
                event_free(s->event);
                s->event = NULL;
        }
        if (s->fd >= 0) {
                close(s->fd);
                s->fd = -1;
        }
}

static void child_unlink(struct child *c)
{
        struct child_runner *runner = c->runner;

        if (c->prev)
                c->prev->next = c->next;
        else if (runner->children == c)
                runner->children = c->next;
        if (c->next)
                c->next->prev = c->prev;
        c->prev = c->next = NULL;
        runner->running--;
}

static void child_free(struct child *c)
{
        if (!c)
                return;
        stream_close(&c->out);
        stream_close(&c->err);
        if (c->exit_event)
                event_free(c->exit_event);
        if (c->timer)
                event_free(c->timer);
        if (c->pidfd >= 0)
                close(c->pidfd);
        if (c->report)
                event_free(c->report);
        saved_spec_free(c->saved);
        output_release(&c->result.out);
        output_release(&c->result.err);
        free(c);
}

/* Reads what is available; returns true at end of file or on a hard error. */
static bool stream_drain(struct stream *s)
{
        char chunk[16384];

        for (;;) {
                ssize_t n = read(s->fd, chunk, sizeof(chunk));
                if (n > 0) {
                        struct child_output *o = s->output;
                        size_t room = s->cap > o->len ? s->cap - o->len : 0;
                        size_t keep = (size_t)n < room ? (size_t)n : room;
                        memcpy(o->data + o->len, chunk, keep);
                        o->len += keep;
                        o->data[o->len] = '\0';
                        o->total += (size_t)n;
                        continue;
                }
                if (n < 0 && errno == EINTR)
                        continue;
                if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
                        return false;
                return true;
        }
}

static void on_stream_readable(evutil_socket_t fd, short what, void *arg)
{
        struct stream *s = arg;

        (void)fd;
        (void)what;
        if (stream_drain(s))
                stream_close(s);
}

static void mark_truncation(struct child_output *o)
{
        if (o->total <= o->len)
                return;
        o->truncated = true;
        o->len +=
            (size_t)snprintf(o->data + o->len, TRUNCATION_MARKER_MAX,
                             "\n[output truncated: kept %zu of %zu bytes]\n", o->len, o->total);
}

static void classify_end(struct child *c, int status)
{
        struct child_result *r = &c->result;
        double cpu = (double)r->usage.ru_utime.tv_sec + (double)r->usage.ru_stime.tv_sec +
                     ((double)r->usage.ru_utime.tv_usec + (double)r->usage.ru_stime.tv_usec) / 1e6;

        if (WIFEXITED(status) && r->sandboxed && WEXITSTATUS(status) > 128 &&
            WEXITSTATUS(status) - 128 < NSIG) {
                /* bubblewrap exits with 128 + the signal that killed the sandbox's command */
                r->exit_code = -1;
                r->signal = WEXITSTATUS(status) - 128;
        } else if (WIFEXITED(status)) {
                r->exit_code = WEXITSTATUS(status);
                r->signal = 0;
        } else if (WIFSIGNALED(status)) {
                r->exit_code = -1;
                r->signal = WTERMSIG(status);
        }
        if (r->signal == SIGXCPU || (r->signal == SIGKILL && c->cpu_limit && !r->timed_out &&
                                     !r->cancelled && cpu >= (double)c->cpu_limit))
                r->limit_hit = CHILD_LIMIT_CPU;
        else if (r->signal == SIGXFSZ)
                r->limit_hit = CHILD_LIMIT_FILE_SIZE;
}

static void start_waiting(struct child_runner *runner);

static void on_child_exit(evutil_socket_t fd, short what, void *arg)
{
        struct child *c = arg;
        struct child_runner *runner;
        bool throttled;
        int status = 0;
        pid_t got;

        (void)fd;
        (void)what;
        /*
         * The leader is a zombie until we reap it, so its process group id
         * cannot be reused yet: killing the group now reaches exactly the
         * grandchildren it left behind, which would otherwise hold our
         * pipes open forever.
         */
        kill(-c->pid, SIGKILL);
        do
                got = wait4(c->pid, &status, 0, &c->result.usage);
        while (got < 0 && errno == EINTR);
        c->result.wall_s = seconds_since(&c->started);
        classify_end(c, status);

        /* Whatever exited processes wrote is in the pipes now; do not wait for
         * EOF, which a grandchild that left the group could withhold. */
        if (c->out.fd >= 0)
                stream_drain(&c->out);
        if (c->err.fd >= 0)
                stream_drain(&c->err);
        stream_close(&c->out);
        stream_close(&c->err);
        mark_truncation(&c->result.out);
        mark_truncation(&c->result.err);

        child_unlink(c);
        if (c->throttled)
                c->runner->throttled_running--;
        if (c->done)
                c->done(&c->result, c->userdata);
        runner = c->runner;
        throttled = c->throttled;
        child_free(c);
        if (throttled)
                start_waiting(runner);
}

static void on_timeout(evutil_socket_t fd, short what, void *arg)
{
        struct child *c = arg;

        (void)fd;
        (void)what;
        c->result.timed_out = true;
        kill(-c->pid, SIGKILL);
}

pid_t child_pid(const struct child *c)
{
        return c ? c->pid : 0;
}

const char *child_stdout_so_far(const struct child *c)
{
        return c && c->out.output && c->out.output->data ? c->out.output->data : "";
}

static void unlink_waiting(struct child *c)
{
        struct child_runner *runner = c->runner;
        struct child *prev = NULL;

        for (struct child *w = runner->waiting_head; w; prev = w, w = w->next) {
                if (w != c)
                        continue;
                if (prev)
                        prev->next = c->next;
                else
                        runner->waiting_head = c->next;
                if (runner->waiting_tail == c)
                        runner->waiting_tail = prev;
                c->next = NULL;
                runner->waiting--;
                return;
        }
}

static void on_report(evutil_socket_t fd, short what, void *arg)
{
        struct child *c = arg;

        (void)fd;
        (void)what;
        unlink_waiting(c);
        if (c->done)
                c->done(&c->result, c->userdata);
        child_free(c);
}

/*
 * A waiting child that will never start (cancelled, or its start failed)
 * reports from the loop, never from inside the caller's call, like a
 * child that ran.  It stays on the waiting list, marked, until then.
 */
static void report_unstarted(struct child *c, const char *why)
{
        if (c->report)
                return;
        c->result.exit_code = -1;
        if (c->result.err.data)
                snprintf(c->result.err.data, c->err.cap, "%s", why);
        c->result.err.len = c->result.err.data ? strlen(c->result.err.data) : 0;
        c->result.err.total = c->result.err.len;
        c->report = event_new(c->runner->base, -1, 0, on_report, c);
        if (c->report)
                event_active(c->report, EV_TIMEOUT, 1);
}

void child_cancel(struct child *c)
{
        if (!c)
                return;
        c->result.cancelled = true;
        if (c->saved) {
                report_unstarted(c, "cancelled before it started");
                return;
        }
        kill(-c->pid, SIGKILL);
}

static int add_limit(const char **argv, size_t *n, size_t max, char *buf, const char *flag,
                     uint64_t value)
{
        int r;

        if (!value)
                return 0;
        snprintf(buf, 24, "%llu", (unsigned long long)value);
        r = add_arg(argv, n, max, flag);
        return r < 0 ? r : add_arg(argv, n, max, buf);
}

/*
 * The full argv: helper [limits] -- [bwrap ... -- [helper --nproc N --]]
 * program args.
 *
 * RLIMIT_NPROC counts the processes of a uid, but since Linux 5.14 it is
 * checked per user namespace: set inside a sandbox's own namespace it
 * counts that sandbox's processes alone, while set before bubblewrap makes
 * the namespace it counts every process of the daemon's user, and the
 * limit for the namespace's parent level is copied from it (kernel/ucount.c).
 * So with a user namespace the helper runs a second time, inside, for the
 * process limit.  Processes of uid 0 are exempt from it: a daemon run as
 * root has no per-sandbox process limit (docs/security.md).
 */
static int build_argv(struct child_runner *runner, const struct child_spec *spec,
                      const char *program, char numbers[5][24], const char ***ret_argv,
                      bool *ret_sandboxed)
{
        size_t user = 0, n = 0, max;
        const char **argv;
        bool sandbox = spec->sandbox_dir && runner->bwrap;
        bool nproc_inside = sandbox && runner->userns && spec->limits.processes;
        uint64_t address_space = spec->limits.address_space_bytes;
        int r = 0;

#ifdef BUILT_WITH_ASAN
        address_space = 0; /* ASan reserves terabytes of address space */
#endif
        while (spec->argv[user])
                user++;
        for (const char *const *p = spec->sandbox_ro_paths; p && *p; p++)
                user += 3;
        max = user + EXTRA_ARGS_MAX;
        argv = calloc(max, sizeof(*argv));
        if (!argv)
                return -ENOMEM;

        r = add_arg(argv, &n, max, runner->exec_helper);
        if (!r)
                r = add_limit(argv, &n, max, numbers[0], "--as", address_space);
        if (!r)
                r = add_limit(argv, &n, max, numbers[1], "--cpu", spec->limits.cpu_seconds);
        if (!r)
                r = add_limit(argv, &n, max, numbers[2], "--fsize", spec->limits.file_size_bytes);
        if (!r)
                r = add_limit(argv, &n, max, numbers[3], "--nproc",
                              nproc_inside ? 0 : spec->limits.processes);
        if (!r && spec->nice > 0)
                r = add_limit(argv, &n, max, numbers[4], "--nice", (uint64_t)spec->nice);
        if (!r)
                r = add_arg(argv, &n, max, "--");
        if (!r && sandbox) {
                /* Killing our bwrap kills the sandbox's pid 1 (die-with-parent),
                 * which tears down every process in its pid namespace. */
                r = add_sandbox_base(runner->bwrap, runner->userns, argv, &n, max);
                if (!r)
                        r = add_arg(argv, &n, max, "--bind");
                if (!r)
                        r = add_arg(argv, &n, max, spec->sandbox_dir);
                if (!r)
                        r = add_arg(argv, &n, max, spec->sandbox_dir);
                for (const char *const *p = spec->sandbox_ro_paths; !r && p && *p; p++) {
                        r = add_arg(argv, &n, max, "--ro-bind");
                        if (!r)
                                r = add_arg(argv, &n, max, *p);
                        if (!r)
                                r = add_arg(argv, &n, max, *p);
                }
                if (!r)
                        r = add_arg(argv, &n, max, "--chdir");
                if (!r)
                        r = add_arg(argv, &n, max, spec->cwd ? spec->cwd : spec->sandbox_dir);
                if (!r && nproc_inside) {
                        const char *inside[] = { "--ro-bind", runner->exec_helper,
                                                 runner->exec_helper, "--", runner->exec_helper };
                        for (size_t i = 0; !r && i < ARRAY_SIZE(inside); i++)
                                r = add_arg(argv, &n, max, inside[i]);
                        if (!r)
                                r = add_limit(argv, &n, max, numbers[3], "--nproc",
                                              spec->limits.processes);
                }
                if (!r)
                        r = add_arg(argv, &n, max, "--");
        }
        if (!r)
                r = add_arg(argv, &n, max, program);
        for (size_t i = 1; !r && spec->argv[i]; i++)
                r = add_arg(argv, &n, max, spec->argv[i]);
        if (r < 0) {
                free(argv);
                return r;
        }
        *ret_argv = argv;
        *ret_sandboxed = sandbox;
        return 0;
}

static int make_pipe(int ends[2])
{
        if (pipe2(ends, O_CLOEXEC) < 0)
                return -errno;
        /* Only our end is non-blocking: the child expects ordinary blocking writes. */
        if (fcntl(ends[0], F_SETFL, O_NONBLOCK) < 0) {
                int r = -errno;
                close(ends[0]);
                close(ends[1]);
                return r;
        }
        return 0;
}

static int spawn(struct child *c, const char *const *argv, const struct child_spec *spec, int out_w,
                 int err_w)
{
        posix_spawn_file_actions_t actions;
        posix_spawnattr_t attr;
        sigset_t all, none;
        int r;

        if (posix_spawn_file_actions_init(&actions) != 0)
                return -ENOMEM;
        if (posix_spawnattr_init(&attr) != 0) {
                posix_spawn_file_actions_destroy(&actions);
                return -ENOMEM;
        }
        sigfillset(&all);
        sigemptyset(&none);
        r = posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
        if (!r)
                r = posix_spawn_file_actions_adddup2(&actions, out_w, STDOUT_FILENO);
        if (!r)
                r = posix_spawn_file_actions_adddup2(&actions, err_w, STDERR_FILENO);
        /* Belt and braces for descriptors a library opened without O_CLOEXEC. */
        if (!r)
                r = posix_spawn_file_actions_addclosefrom_np(&actions, 3);
        if (!r && spec->cwd)
                r = posix_spawn_file_actions_addchdir_np(&actions, spec->cwd);
        if (!r)
                r = posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK |
                                                        POSIX_SPAWN_SETSIGDEF);
        if (!r)
                r = posix_spawnattr_setpgroup(&attr, 0);
        /* The daemon ignores SIGPIPE and blocks signals it handles through
         * libevent; children must start with the defaults. */
        if (!r)
                r = posix_spawnattr_setsigmask(&attr, &none);
        if (!r)
                r = posix_spawnattr_setsigdefault(&attr, &all);
        if (!r)
                r = posix_spawn(
                    &c->pid, argv[0], &actions, &attr, (char *const *)argv,
                    (char *const *)(spec->envp ? spec->envp : (const char *const *)environ));
        posix_spawnattr_destroy(&attr);
        posix_spawn_file_actions_destroy(&actions);
        return -r;
}

/*
 * Spawns an allocated child and hooks it to the loop.  On failure nothing
 * runs and c is left for the caller to free.
 */
static int launch(struct child *c, const struct child_spec *spec)
{
        struct child_runner *runner = c->runner;
        char numbers[5][24];
        const char **argv = NULL;
        char *program = NULL;
        int out_pipe[2] = { -1, -1 }, err_pipe[2] = { -1, -1 };
        bool sandboxed = false;
        int r;

        program = resolve_program(spec->argv[0]);
        if (!program)
                return -ENOENT;
        if (spec->cwd && access(spec->cwd, X_OK) < 0) {
                r = -errno;
                goto fail;
        }

        r = build_argv(runner, spec, program, numbers, &argv, &sandboxed);
        if (r < 0)
                goto fail;
        r = make_pipe(out_pipe);
        if (r < 0)
                goto fail;
        r = make_pipe(err_pipe);
        if (r < 0)
                goto fail;

        clock_gettime(CLOCK_MONOTONIC, &c->started);
        r = spawn(c, argv, spec, out_pipe[1], err_pipe[1]);
        if (r < 0)
                goto fail;
        close(out_pipe[1]);
        close(err_pipe[1]);
        out_pipe[1] = err_pipe[1] = -1;
        c->out.fd = out_pipe[0];
        c->err.fd = err_pipe[0];
        out_pipe[0] = err_pipe[0] = -1;
        c->result.pid = c->pid;
        c->result.sandboxed = sandboxed;

        /* From here on the process exists: failures must kill and reap it. */
        c->pidfd = (int)syscall(SYS_pidfd_open, c->pid, 0);
        if (c->pidfd < 0) {
                r = -errno;
                goto kill_child;
        }
        c->exit_event = event_new(runner->base, c->pidfd, EV_READ, on_child_exit, c);
        c->out.event =
            event_new(runner->base, c->out.fd, EV_READ | EV_PERSIST, on_stream_readable, &c->out);
        c->err.event =
            event_new(runner->base, c->err.fd, EV_READ | EV_PERSIST, on_stream_readable, &c->err);
        if (!c->exit_event || !c->out.event || !c->err.event) {
                r = -ENOMEM;
                goto kill_child;
        }
        if (event_add(c->exit_event, NULL) < 0 || event_add(c->out.event, NULL) < 0 ||
            event_add(c->err.event, NULL) < 0) {
                r = -EIO;
                goto kill_child;
        }
        if (spec->timeout_s > 0) {
                struct timeval tv = {
                        .tv_sec = (time_t)spec->timeout_s,
                        .tv_usec =
                            (suseconds_t)((spec->timeout_s - (double)(time_t)spec->timeout_s) * 1e6)
                };
                c->timer = evtimer_new(runner->base, on_timeout, c);
                if (!c->timer || evtimer_add(c->timer, &tv) < 0) {
                        r = -ENOMEM;
                        goto kill_child;
                }
        }

        c->next = runner->children;
        if (runner->children)
                runner->children->prev = c;
        runner->children = c;
        runner->running++;
        free(argv);
        free(program);
        return 0;

kill_child:
        kill(-c->pid, SIGKILL);
        while (waitpid(c->pid, NULL, 0) < 0 && errno == EINTR)
                ;
fail:
        for (int i = 0; i < 2; i++) {
                if (out_pipe[i] >= 0)
                        close(out_pipe[i]);
                if (err_pipe[i] >= 0)
                        close(err_pipe[i]);
        }
        free(argv);
        free(program);
        return r;
}

/* Starts waiting throttled children while slots are free, in the order they came. */
static void start_waiting(struct child_runner *runner)
{
        struct child *c = runner->waiting_head;

        while (c && (!runner->max_throttled || runner->throttled_running < runner->max_throttled)) {
                struct child *next = c->next;
                char why[128];
                int r;

                if (c->report) { /* already ending */
                        c = next;
                        continue;
                }
                unlink_waiting(c);
                r = launch(c, &c->saved->spec);
                if (r < 0) {
                        /* back on the list so that it reports like any waiting child */
                        c->next = runner->waiting_head;
                        runner->waiting_head = c;
                        if (!runner->waiting_tail)
                                runner->waiting_tail = c;
                        runner->waiting++;
                        snprintf(why, sizeof(why), "cannot start: %s", strerror(-r));
                        report_unstarted(c, why);
                } else {
                        runner->throttled_running++;
                        c->saved = saved_spec_free(c->saved);
                }
                c = next;
        }
}

int child_start(struct child_runner *runner, const struct child_spec *spec, child_done_fn done,
                void *userdata, struct child **ret_child)
{
        struct child *c = NULL;
        int r;

        if (!runner || !spec || !spec->argv || !spec->argv[0] || spec->timeout_s < 0 ||
            spec->nice < 0)
                return -EINVAL;
        if (runner->running >= runner->max_children || runner->waiting >= runner->max_children)
                return -EAGAIN;
        /* fail closed: a child that asks for a sandbox runs without only when allowed to */
        if (spec->sandbox_dir && !runner->bwrap && !runner->allow_unsandboxed)
                return -EPERM;
        c = calloc(1, sizeof(*c));
        if (!c)
                return -ENOMEM;
        c->runner = runner;
        c->pidfd = -1;
        c->out.fd = c->err.fd = -1;
        c->done = done;
        c->userdata = userdata;
        c->throttled = spec->throttled;
        c->cpu_limit = spec->limits.cpu_seconds;
        c->out.output = &c->result.out;
        c->err.output = &c->result.err;
        c->out.cap = c->err.cap = spec->output_cap ? spec->output_cap : DEFAULT_OUTPUT_CAP;
        c->result.child = c;
        c->result.out.data = malloc(c->out.cap + TRUNCATION_MARKER_MAX + 1);
        c->result.err.data = malloc(c->err.cap + TRUNCATION_MARKER_MAX + 1);
        if (!c->result.out.data || !c->result.err.data) {
                r = -ENOMEM;
                goto fail;
        }
        c->result.out.data[0] = c->result.err.data[0] = '\0';

        if (c->throttled && runner->max_throttled &&
            runner->throttled_running >= runner->max_throttled) {
                /* resolve now, so that a missing program fails the call as it would unthrottled */
                char *program = resolve_program(spec->argv[0]);
                if (!program) {
                        r = -ENOENT;
                        goto fail;
                }
                free(program);
                r = saved_spec_new(spec, &c->saved);
                if (r < 0)
                        goto fail;
                if (runner->waiting_tail)
                        runner->waiting_tail->next = c;
                else
                        runner->waiting_head = c;
                runner->waiting_tail = c;
                runner->waiting++;
        } else {
                r = launch(c, spec);
                if (r < 0)
                        goto fail;
                runner->throttled_running += c->throttled;
        }
        if (ret_child)
                *ret_child = c;
        return 0;
fail:
        child_free(c);
        return r;
}

struct child_runner *child_runner_free(struct child_runner *runner)
{
        if (!runner)
                return NULL;
        while (runner->children) {
                struct child *c = runner->children;
                kill(-c->pid, SIGKILL);
                while (waitpid(c->pid, NULL, 0) < 0 && errno == EINTR)
                        ;
                child_unlink(c);
                child_free(c);
        }
        while (runner->waiting_head) {
                struct child *c = runner->waiting_head;
                runner->waiting_head = c->next;
                child_free(c);
        }
        free(runner->exec_helper);
        free(runner->bwrap);
        free(runner);
        return NULL;
}

const char *child_result_describe(const struct child_result *r, char *buf, size_t size)
{
        if (r->timed_out)
                snprintf(buf, size, "timed out after %.1f s", r->wall_s);
        else if (r->cancelled)
                snprintf(buf, size, "cancelled");
        else if (r->limit_hit == CHILD_LIMIT_CPU)
                snprintf(buf, size, "CPU time limit exceeded");
        else if (r->limit_hit == CHILD_LIMIT_FILE_SIZE)
                snprintf(buf, size, "file size limit exceeded");
        else if (r->signal)
                snprintf(buf, size, "killed by SIG%s",
                         sigabbrev_np(r->signal) ? sigabbrev_np(r->signal) : "?");
        else
                snprintf(buf, size, "exit %d", r->exit_code);
        return buf;
}
