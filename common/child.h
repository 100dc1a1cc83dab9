/* SPDX-License-Identifier: MIT */
/*
 * The child-process runner: every compile, run and toolchain call is a
 * child on an event loop, with resource limits, a timeout, captured
 * output and, for operator code, the bubblewrap sandbox.  Part of
 * common/common.h, which includes it.
 */
#ifndef ASCENDOPT_COMMON_CHILD_H
#define ASCENDOPT_COMMON_CHILD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/resource.h>
#include <sys/types.h>

struct event_base;

/* Resource limits of a child; 0 leaves a limit as inherited. */
struct child_limits {
        uint64_t address_space_bytes; /* RLIMIT_AS; ignored in ASan builds */
        uint64_t cpu_seconds;         /* RLIMIT_CPU */
        uint64_t file_size_bytes;     /* RLIMIT_FSIZE */
        uint64_t processes;           /* RLIMIT_NPROC, counted per sandbox (child.c) */
        /* not an rlimit: the evaluation checks its work directory against it
         * after each run (npu/sim-run.c) */
        uint64_t scratch_bytes;
};

/*
 * What an evaluation's children get where its caller sets no limit (the
 * CLI); the daemon's episode.rlimits defaults to the same.  Processes are
 * counted per sandbox (see build_argv in child.c); scratch is the work
 * directory's size after a run.
 */
#define CHILD_DEFAULT_ADDRESS_SPACE_MB 8192
#define CHILD_DEFAULT_CPU_S            600
#define CHILD_DEFAULT_FILE_SIZE_MB     1024
#define CHILD_DEFAULT_PROCESSES        256
#define CHILD_DEFAULT_SCRATCH_MB       16384

/* limits with each unset (0) field replaced by its CHILD_DEFAULT_ value. */
struct child_limits child_limits_or_defaults(struct child_limits limits);

struct child_spec {
        /* argv[0] is the program; it is looked up in PATH when it has no '/' */
        const char *const *argv;
        const char *const *envp; /* NULL inherits the runner's environment */
        const char *cwd;         /* NULL inherits */
        struct child_limits limits;
        double timeout_s;  /* wall clock; 0 means none */
        size_t output_cap; /* bytes kept per stream; 0 means 1 MiB */
        int nice;          /* added niceness, 0..19 */
        /*
         * When set and bubblewrap is usable, the child runs with no network,
         * a read-only view of the system and only this directory writable
         * (plus a private /tmp).  When bubblewrap is missing the child runs
         * unsandboxed and the result says so.
         */
        const char *sandbox_dir;
        /* Extra read-only paths the sandboxed child may see; NULL-terminated. */
        const char *const *sandbox_ro_paths;
        /*
         * Counts against the runner's max_throttled (compiles): past it the
         * child waits, in order, and starts when a throttled one ends.  The
         * spec is copied, so it need not outlive child_start.
         */
        bool throttled;
};

enum child_limit_hit {
        CHILD_LIMIT_NONE = 0,
        CHILD_LIMIT_CPU,       /* killed by SIGXCPU/SIGKILL at RLIMIT_CPU */
        CHILD_LIMIT_FILE_SIZE, /* killed by SIGXFSZ */
};

struct child_output {
        char *data; /* NUL-terminated, owned by the result */
        size_t len;
        size_t total;   /* bytes the child wrote, kept or not */
        bool truncated; /* total > len; data ends with a marker line */
};

struct child_result {
        const struct child *child; /* the handle child_start gave */
        pid_t pid;                 /* 0 when it never started (cancelled while waiting) */
        int exit_code;             /* -1 when killed by a signal */
        int signal;                /* 0 unless killed by a signal */
        bool timed_out;
        bool cancelled;
        bool sandboxed;
        enum child_limit_hit limit_hit;
        double wall_s;
        struct rusage usage;
        struct child_output out, err;
};

/* Human summary of how a child ended, e.g. "exit 1", "killed by SIGSEGV",
 * "timed out after 2.0 s", "CPU limit exceeded".  Returns a static string
 * or writes into buf. */
const char *child_result_describe(const struct child_result *r, char *buf, size_t size);

struct child_runner;
struct child;

/*
 * Called once per child from the event loop after it ended and its output
 * was drained.  The result is borrowed for the duration of the call.  The
 * callback may start new children.
 */
typedef void (*child_done_fn)(const struct child_result *result, void *userdata);

struct child_runner_options {
        const char *exec_helper; /* path of ascendopt-exec; NULL: child_find_exec_helper() */
        const char *bwrap;       /* path of bwrap; NULL: looked up in PATH; "" disables */
        size_t max_children;     /* 0 means 256; as many more may wait throttled */
        size_t max_throttled;    /* throttled children running at once; 0: no limit */
        /* children asking for a sandbox may run without one when bubblewrap is
         * missing or unusable (the config's "sandbox": "off"; also when the
         * environment has ASCENDOPT_SANDBOX=off); else they fail to start */
        bool allow_unsandboxed;
};

/*
 * Creates a runner bound to an event base (borrowed; it must outlive the
 * runner).  Fails with -ENOENT when the exec helper cannot be found.
 */
int child_runner_new(struct event_base *base, const struct child_runner_options *options,
                     struct child_runner **ret_runner);

/* Kills every running child (without calling callbacks) and frees the runner. */
struct child_runner *child_runner_free(struct child_runner *runner);

/* Whether children asking for a sandbox actually get one. */
bool child_runner_has_sandbox(const struct child_runner *runner);
/* Whether they may run without one (allow_unsandboxed, or ASCENDOPT_SANDBOX=off). */
bool child_runner_allows_unsandboxed(const struct child_runner *runner);

/*
 * What a user is told when a child that asks for a sandbox cannot get one
 * (child_start's -EPERM): how to make one work, or how to run without.
 */
#define CHILD_NO_SANDBOX_HELP                                                                    \
        "no sandbox: bubblewrap (bwrap) is missing or cannot create namespaces here; install "   \
        "bubblewrap (scripts/install-deps), or run without a sandbox with \"sandbox\": \"off\" " \
        "in the daemon's config or ASCENDOPT_SANDBOX=off for a command"

/*
 * Why the ascend backend needs the sandbox turned off on purpose: its
 * builds and msprof runs need the NPU's device nodes and the CANN toolkit,
 * which no sandbox gives yet (issue #25).
 */
#define ASCEND_UNSANDBOXED_HELP                                                           \
        "the ascend backend compiles and runs candidates outside the sandbox (they need " \
        "the NPU's device nodes and the CANN toolkit, which the sandbox does not give yet)"

/* What a child_start error means for a user: CHILD_NO_SANDBOX_HELP for -EPERM, else strerror. */
const char *child_strerror(int r);

/* Number of children started and not yet reported. */
size_t child_runner_running(const struct child_runner *runner);

/*
 * Starts a child in its own process group.  Never blocks.  Returns -EAGAIN
 * when max_children are already running, -EINVAL on a bad spec, -EPERM
 * when the spec asks for a sandbox and there is none (and running without
 * is not allowed: CHILD_NO_SANDBOX_HELP says what to do), or another
 * -errno when the pipes or the process could not be made.  *ret_child (may
 * be NULL) stays valid until the callback returns.
 */
int child_start(struct child_runner *runner, const struct child_spec *spec, child_done_fn done,
                void *userdata, struct child **ret_child);

/* Kills the child's process group; the callback still runs, with cancelled set.
 * Accepts NULL. */
void child_cancel(struct child *child);

/* The process id of a running child. */
pid_t child_pid(const struct child *child);

/*
 * What a running child has written to its standard output so far, up to
 * its spec's output_cap; "" for none or NULL.  Valid until the event loop
 * runs again.
 */
const char *child_stdout_so_far(const struct child *child);

/*
 * Where the exec helper lives: $ASCENDOPT_EXEC_HELPER, else next to the
 * running program, else the installed libexec path.  Returns a static or
 * environment string, or NULL when none exists.
 */
const char *child_find_exec_helper(void);

#endif
