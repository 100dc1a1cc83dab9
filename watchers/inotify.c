/* SPDX-License-Identifier: MIT */
/*
 * The inotify side of the watchers: one instance watching each repo's git
 * dir and refs tree, a settle timer per repo so that a burst of ref updates
 * becomes one scan, waits while index.lock exists, rescans with backoff
 * after a queue overflow, and reattaches repos that vanish.  Events only
 * mark a repo dirty; the scan compares tips with the store.
 */
#include "watchers.h"

#include "common/common.h"

#include <dirent.h>
#include <errno.h>
#include <fnmatch.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <event2/event.h>
#include <git2.h>

#define DIR_MASK                                                                                 \
        (IN_CREATE | IN_DELETE | IN_MOVED_TO | IN_MOVED_FROM | IN_CLOSE_WRITE | IN_DELETE_SELF | \
         IN_MOVE_SELF | IN_ONLYDIR)
#define RETRY_MIN_S      1.0
#define RETRY_MAX_S      60.0
#define OVERFLOW_QUIET_S 60.0

enum watch_kind {
        WATCH_GIT_DIR,    /* HEAD and index.lock live here */
        WATCH_COMMON_DIR, /* packed-refs lives here (the same dir outside worktrees) */
        WATCH_REFS,       /* refs/heads and refs/remotes, recursively */
};

struct watch {
        int wd;
        struct repo *repo;
        enum watch_kind kind;
        char *path;
};

struct repo {
        struct watcher *watcher;
        char *path;
        char **branches, **operators;
        size_t n_branches, n_operators;
        char *git_dir, *common_dir;
        bool attached;
        bool logged_missing;
        double retry_s;
        double lock_wait_started; /* 0 when not waiting */
        bool lock_reported;
        size_t n_watches;
        struct event *settle_timer;
        struct event *retry_timer;
        bool scanning;   /* a scan job is on a worker */
        bool scan_again; /* something changed while it ran */
        bool removed;    /* removed while scanning: freed when the job is back */
};

struct watcher {
        struct event_base *base;
        struct store *store;
        struct watcher_options options; /* exclude_prefix points at our own copy */
        watch_event_fn on_event;
        void *userdata;
        int fd;
        struct event *readable;
        struct event *rescan_timer;
        struct repo **repos;
        size_t n_repos;
        struct watch *watches;
        size_t n_watches, cap_watches;
        unsigned overflow_burst;
        double last_overflow;
        bool enospc_reported;
};

static double now_s(void)
{
        struct timespec t;

        clock_gettime(CLOCK_MONOTONIC, &t);
        return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static struct timeval seconds(double s)
{
        struct timeval tv = { .tv_sec = (time_t)s,
                              .tv_usec = (suseconds_t)((s - (double)(time_t)s) * 1e6) };
        return tv;
}

double watch_rescan_delay_s(unsigned n)
{
        double delay = 0.1;

        if (n < 3)
                return 0;
        for (unsigned i = 3; i < n && delay < 10.0; i++)
                delay *= 2;
        return delay > 10.0 ? 10.0 : delay;
}

/* ------------------------------------------------------------ watches */

static struct watch *find_watch(struct watcher *w, int wd)
{
        for (size_t i = 0; i < w->n_watches; i++)
                if (w->watches[i].wd == wd)
                        return &w->watches[i];
        return NULL;
}

static void forget_watch_at(struct watcher *w, size_t i)
{
        w->watches[i].repo->n_watches--;
        free(w->watches[i].path);
        w->watches[i] = w->watches[--w->n_watches];
}

static int add_watch(struct repo *repo, const char *path, enum watch_kind kind)
{
        struct watcher *w = repo->watcher;
        struct watch *existing;
        int wd;

        if (repo->n_watches >= w->options.max_watches_per_repo) {
                log_msg(LOG_WARNING, repo->path,
                        "more than %zu directories under refs/; not watching %s (changes there "
                        "are still found by the next scan)",
                        w->options.max_watches_per_repo, path);
                return -E2BIG;
        }
        wd = inotify_add_watch(w->fd, path, DIR_MASK);
        if (wd < 0) {
                int r = -errno;
                if (r == -ENOSPC && !w->enospc_reported) {
                        log_error("inotify watch limit reached while watching %s; raise "
                                  "fs.inotify.max_user_watches (for example 'sysctl "
                                  "fs.inotify.max_user_watches=524288', or install "
                                  "systemd/ascendopt-inotify.conf into /etc/sysctl.d)",
                                  path);
                        w->enospc_reported = true;
                }
                return r;
        }
        /* inotify hands back the same wd for a path watched twice */
        existing = find_watch(w, wd);
        if (existing)
                return 0;
        if (w->n_watches == w->cap_watches) {
                size_t cap = w->cap_watches ? 2 * w->cap_watches : 64;
                struct watch *grown = realloc(w->watches, cap * sizeof(*grown));
                if (!grown) {
                        inotify_rm_watch(w->fd, wd);
                        return -ENOMEM;
                }
                w->watches = grown;
                w->cap_watches = cap;
        }
        w->watches[w->n_watches] =
            (struct watch){ .wd = wd, .repo = repo, .kind = kind, .path = strdup(path) };
        if (!w->watches[w->n_watches].path) {
                inotify_rm_watch(w->fd, wd);
                return -ENOMEM;
        }
        w->n_watches++;
        repo->n_watches++;
        return 0;
}

/* Watches dir and every directory below it. */
static void add_refs_tree(struct repo *repo, const char *dir)
{
        char child[PATH_MAX];
        struct dirent *e;
        DIR *d;

        if (add_watch(repo, dir, WATCH_REFS) < 0)
                return;
        d = opendir(dir);
        if (!d)
                return;
        while ((e = readdir(d))) {
                struct stat st;
                if (e->d_name[0] == '.' ||
                    format_path(child, sizeof(child), "%s/%s", dir, e->d_name) < 0)
                        continue;
                if (lstat(child, &st) == 0 && S_ISDIR(st.st_mode))
                        add_refs_tree(repo, child);
        }
        closedir(d);
}

static void drop_repo_watches(struct repo *repo)
{
        struct watcher *w = repo->watcher;

        for (size_t i = 0; i < w->n_watches;) {
                if (w->watches[i].repo == repo) {
                        inotify_rm_watch(w->fd, w->watches[i].wd);
                        forget_watch_at(w, i);
                } else {
                        i++;
                }
        }
}

/* ------------------------------------------------------------ scanning */

/*
 * A scan reads branch tips, recorded tips and tree diffs: git and store
 * reads only, so with a worker pool it runs on a worker thread on copies
 * of the repo's settings, and the loop delivers what it found.  One scan
 * per repo at a time keeps a repo's events in order.
 */
struct branch_scan {
        bool moved;
        bool first_seen;
        char recorded[WATCH_OID_HEX];
        char **dirs;
        size_t n_dirs;
        char diff_err[1024]; /* non-empty: the diff failed, treated as a new start */
};

struct scan_job {
        struct repo *repo;
        struct store *store;
        char *path, *exclude_prefix;
        char **branches, **operators;
        size_t n_branches, n_operators;
        int listed; /* watch_list_tips' result */
        char list_err[1024];
        struct watch_tip *tips;
        size_t n_tips;
        struct branch_scan *found; /* one per tip */
};

static void free_strings(char **list, size_t n)
{
        for (size_t i = 0; list && i < n; i++)
                free(list[i]);
        free(list);
}

static void scan_job_free(struct scan_job *job)
{
        if (!job)
                return;
        for (size_t i = 0; job->found && i < job->n_tips; i++)
                watch_dirs_free(job->found[i].dirs, job->found[i].n_dirs);
        free(job->found);
        watch_tips_free(job->tips, job->n_tips);
        free_strings(job->branches, job->n_branches);
        free_strings(job->operators, job->n_operators);
        free(job->path);
        free(job->exclude_prefix);
        free(job);
}

static void scan_work(void *data)
{
        struct scan_job *job = data;

        job->listed =
            watch_list_tips(job->path, job->branches, job->n_branches, job->exclude_prefix,
                            &job->tips, &job->n_tips, job->list_err, sizeof(job->list_err));
        if (job->listed < 0)
                return;
        job->found = calloc(job->n_tips ? job->n_tips : 1, sizeof(*job->found));
        if (!job->found) {
                job->listed = -ENOMEM;
                snprintf(job->list_err, sizeof(job->list_err), "out of memory");
                return;
        }
        for (size_t i = 0; i < job->n_tips; i++) {
                const struct watch_tip *tip = &job->tips[i];
                struct branch_scan *f = &job->found[i];
                int r = watch_recorded_tip(job->store, job->path, tip->branch, f->recorded);
                if (r == 0 && strcmp(f->recorded, tip->oid) == 0)
                        continue;
                f->moved = true;
                f->first_seen = r < 0;
                if (f->first_seen)
                        continue;
                r = watch_changed_operators(job->path, f->recorded, tip->oid, job->operators,
                                            job->n_operators, &f->dirs, &f->n_dirs, f->diff_err,
                                            sizeof(f->diff_err));
                if (r < 0) {
                        f->dirs = NULL;
                        f->n_dirs = 0;
                        if (!f->diff_err[0])
                                snprintf(f->diff_err, sizeof(f->diff_err), "%s", strerror(-r));
                }
        }
}

/* On the loop: logs and reports each branch that moved, in order. */
static void deliver_scan(struct repo *repo, struct scan_job *job)
{
        struct watcher *w = repo->watcher;

        if (job->listed < 0) {
                log_msg(LOG_WARNING, repo->path, "scan failed: %s", job->list_err);
                return;
        }
        for (size_t i = 0; i < job->n_tips; i++) {
                const struct watch_tip *tip = &job->tips[i];
                struct branch_scan *f = &job->found[i];
                bool first_seen = f->first_seen;
                if (!f->moved)
                        continue;
                if (f->diff_err[0]) {
                        /* e.g. history rewritten and the old tip garbage-collected */
                        log_msg(LOG_WARNING, repo->path,
                                "branch %s: cannot diff against the recorded tip (%s); "
                                "treating %.12s as a new start",
                                tip->branch, f->diff_err, tip->oid);
                        first_seen = true;
                }
                struct watch_event event = {
                        .repo = repo->path,
                        .branch = tip->branch,
                        .old_oid = first_seen ? NULL : f->recorded,
                        .new_oid = tip->oid,
                        .operator_dirs = f->dirs,
                        .n_operator_dirs = f->n_dirs,
                };
                log_msg(LOG_INFO, repo->path,
                        "branch %s moved %.12s -> %.12s, %zu operator%s changed", tip->branch,
                        first_seen ? "(new)" : f->recorded, tip->oid, f->n_dirs,
                        f->n_dirs == 1 ? "" : "s");
                w->on_event(&event, w->userdata);
        }
}

static void repo_free(struct repo *repo);
static void scan_repo(struct repo *repo);

static void scan_done(void *data, int status)
{
        struct scan_job *job = data;
        struct repo *repo = job->repo;

        repo->scanning = false;
        if (repo->removed) {
                repo_free(repo);
        } else if (status == 0) {
                deliver_scan(repo, job);
                if (repo->scan_again) {
                        repo->scan_again = false;
                        scan_repo(repo);
                }
        }
        scan_job_free(job);
}

static struct scan_job *scan_job_new(struct repo *repo)
{
        struct watcher *w = repo->watcher;
        struct scan_job *job = calloc(1, sizeof(*job));
        char **branches = NULL, **operators = NULL;

        if (!job)
                return NULL;
        job->repo = repo;
        job->store = w->store;
        job->path = strdup(repo->path);
        job->exclude_prefix = w->options.exclude_prefix ? strdup(w->options.exclude_prefix) : NULL;
        branches = calloc(repo->n_branches + 1, sizeof(*branches));
        operators = calloc(repo->n_operators + 1, sizeof(*operators));
        job->branches = branches;
        job->operators = operators;
        job->n_branches = repo->n_branches;
        job->n_operators = repo->n_operators;
        if (!job->path || (w->options.exclude_prefix && !job->exclude_prefix) || !branches ||
            !operators)
                goto fail;
        for (size_t i = 0; i < repo->n_branches; i++)
                if (!(branches[i] = strdup(repo->branches[i])))
                        goto fail;
        for (size_t i = 0; i < repo->n_operators; i++)
                if (!(operators[i] = strdup(repo->operators[i])))
                        goto fail;
        return job;
fail:
        scan_job_free(job);
        return NULL;
}

static void scan_repo(struct repo *repo)
{
        struct watcher *w = repo->watcher;
        struct scan_job *job;

        if (!repo->attached)
                return;
        if (repo->scanning) {
                repo->scan_again = true;
                return;
        }
        job = scan_job_new(repo);
        if (!job) {
                log_msg(LOG_WARNING, repo->path, "scan failed: out of memory");
                return;
        }
        if (w->options.workers &&
            worker_pool_submit(w->options.workers, scan_work, scan_done, job) == 0) {
                repo->scanning = true;
                return;
        }
        /* no pool (tools, tests) or a full one: scan here */
        scan_work(job);
        deliver_scan(repo, job);
        scan_job_free(job);
}

static bool index_locked(const struct repo *repo)
{
        char path[PATH_MAX];

        return format_path(path, sizeof(path), "%s/index.lock", repo->git_dir) == 0 &&
               access(path, F_OK) == 0;
}

static void on_settled(evutil_socket_t fd, short what, void *arg)
{
        struct repo *repo = arg;
        struct watcher *w = repo->watcher;

        (void)fd;
        (void)what;
        if (index_locked(repo)) {
                double now = now_s();
                if (!repo->lock_wait_started)
                        repo->lock_wait_started = now;
                if (now - repo->lock_wait_started < w->options.lock_wait_max_s) {
                        struct timeval tv = seconds(w->options.settle_s);
                        evtimer_add(repo->settle_timer, &tv);
                        return;
                }
                if (!repo->lock_reported) {
                        log_msg(LOG_WARNING, repo->path,
                                "index.lock has existed for %.0f s; treating it as stale "
                                "(remove %s/index.lock if no git command is running)",
                                now - repo->lock_wait_started, repo->git_dir);
                        repo->lock_reported = true;
                }
        } else {
                repo->lock_wait_started = 0;
                repo->lock_reported = false;
        }
        scan_repo(repo);
}

static void mark_dirty(struct repo *repo)
{
        struct timeval tv = seconds(repo->watcher->options.settle_s);

        /* re-arming restarts the quiet period: a burst becomes one scan */
        evtimer_add(repo->settle_timer, &tv);
}

/* ------------------------------------------------------------ attaching */

static void schedule_retry(struct repo *repo)
{
        struct timeval tv;

        repo->retry_s = repo->retry_s ? repo->retry_s * 2 : RETRY_MIN_S;
        if (repo->retry_s > RETRY_MAX_S)
                repo->retry_s = RETRY_MAX_S;
        tv = seconds(repo->retry_s);
        evtimer_add(repo->retry_timer, &tv);
}

static bool wants_remotes(const struct repo *repo)
{
        for (size_t i = 0; i < repo->n_branches; i++)
                if (strchr(repo->branches[i], '/'))
                        return true;
        return false;
}

static int attach(struct repo *repo)
{
        git_repository *git = NULL;
        char refs[PATH_MAX];
        int code, r = 0;

        git_libgit2_init();
        code = git_repository_open_ext(&git, repo->path, GIT_REPOSITORY_OPEN_NO_SEARCH, NULL);
        if (code < 0) {
                const git_error *e = git_error_last();
                if (!repo->logged_missing)
                        log_msg(LOG_WARNING, repo->path,
                                "not a readable git repository yet (%s); retrying with backoff",
                                e && e->message ? e->message : "unknown error");
                repo->logged_missing = true;
                r = -ENOENT;
                goto out;
        }
        free(repo->git_dir);
        free(repo->common_dir);
        repo->git_dir = strdup(git_repository_path(git));
        repo->common_dir = strdup(git_repository_commondir(git));
        if (!repo->git_dir || !repo->common_dir) {
                r = -ENOMEM;
                goto out;
        }
        /* libgit2 ends these with '/'; our messages and paths do not want it */
        repo->git_dir[strlen(repo->git_dir) - 1] = '\0';
        repo->common_dir[strlen(repo->common_dir) - 1] = '\0';

        r = add_watch(repo, repo->git_dir, WATCH_GIT_DIR);
        if (r == 0 && strcmp(repo->git_dir, repo->common_dir) != 0)
                r = add_watch(repo, repo->common_dir, WATCH_COMMON_DIR);
        if (r < 0)
                goto out;
        if (format_path(refs, sizeof(refs), "%s/refs/heads", repo->common_dir) == 0)
                add_refs_tree(repo, refs);
        if (wants_remotes(repo) &&
            format_path(refs, sizeof(refs), "%s/refs/remotes", repo->common_dir) == 0)
                add_refs_tree(repo, refs);
        if (repo->logged_missing)
                log_msg(LOG_NOTICE, repo->path, "repository is back; watching it");
        repo->attached = true;
        repo->logged_missing = false;
        repo->retry_s = 0;
out:
        if (r < 0)
                drop_repo_watches(repo);
        git_repository_free(git);
        git_libgit2_shutdown();
        return r;
}

static void on_retry(evutil_socket_t fd, short what, void *arg)
{
        struct repo *repo = arg;

        (void)fd;
        (void)what;
        if (attach(repo) < 0) {
                schedule_retry(repo);
                return;
        }
        scan_repo(repo);
}

static void detach(struct repo *repo, const char *why)
{
        if (!repo->attached)
                return;
        log_msg(LOG_WARNING, repo->path, "%s; retrying with backoff", why);
        repo->attached = false;
        repo->logged_missing = true;
        drop_repo_watches(repo);
        evtimer_del(repo->settle_timer);
        schedule_retry(repo);
}

/* ------------------------------------------------------------ events */

static bool interesting_name(enum watch_kind kind, const char *name, size_t len)
{
        if (!len)
                return true;
        if (len > 5 && strcmp(name + len - 5, ".lock") == 0)
                return kind == WATCH_GIT_DIR && strcmp(name, "index.lock") == 0;
        if (kind == WATCH_REFS)
                return true;
        return strcmp(name, "HEAD") == 0 || strcmp(name, "packed-refs") == 0;
}

static void on_overflow_rescan(evutil_socket_t fd, short what, void *arg)
{
        (void)fd;
        (void)what;
        watcher_rescan_all(arg);
}

static void handle_overflow(struct watcher *w)
{
        double now = now_s(), delay;

        if (now - w->last_overflow > OVERFLOW_QUIET_S)
                w->overflow_burst = 0;
        w->last_overflow = now;
        delay = watch_rescan_delay_s(w->overflow_burst++);
        log_warning("inotify queue overflowed; rescanning every repository%s",
                    delay > 0 ? " after a backoff" : "");
        if (delay <= 0) {
                watcher_rescan_all(w);
        } else if (!evtimer_pending(w->rescan_timer, NULL)) {
                struct timeval tv = seconds(delay);
                evtimer_add(w->rescan_timer, &tv);
        }
}

static void handle_event(struct watcher *w, const struct inotify_event *ev)
{
        struct watch *watch;
        struct repo *repo;
        char path[PATH_MAX];

        if (ev->mask & IN_Q_OVERFLOW) {
                handle_overflow(w);
                return;
        }
        watch = find_watch(w, ev->wd);
        if (!watch)
                return;
        repo = watch->repo;
        if (ev->mask & IN_IGNORED) {
                /* the kernel dropped this wd; it may be reused for another path */
                enum watch_kind kind = watch->kind;
                forget_watch_at(w, (size_t)(watch - w->watches));
                if (kind != WATCH_REFS)
                        detach(repo, "the git directory disappeared");
                else
                        mark_dirty(repo);
                return;
        }
        if ((ev->mask & (IN_DELETE_SELF | IN_MOVE_SELF)) && watch->kind != WATCH_REFS) {
                detach(repo, "the git directory was removed or moved");
                return;
        }
        if ((ev->mask & IN_ISDIR) && (ev->mask & (IN_CREATE | IN_MOVED_TO)) &&
            watch->kind == WATCH_REFS && ev->len &&
            format_path(path, sizeof(path), "%s/%s", watch->path, ev->name) == 0) {
                /* a new branch directory such as refs/heads/dev/; refs may already be in it */
                add_refs_tree(repo, path);
                mark_dirty(repo);
                return;
        }
        if (!interesting_name(watch->kind, ev->len ? ev->name : "", ev->len ? strlen(ev->name) : 0))
                return;
        mark_dirty(repo);
}

static void on_readable(evutil_socket_t fd, short what, void *arg)
{
        struct watcher *w = arg;
        char buf[16384] __attribute__((aligned(__alignof__(struct inotify_event))));

        (void)what;
        for (;;) {
                ssize_t n = read((int)fd, buf, sizeof(buf));
                if (n < 0 && errno == EINTR)
                        continue;
                if (n <= 0)
                        return;
                for (char *p = buf; p < buf + n;) {
                        const struct inotify_event *ev = (const struct inotify_event *)p;
                        handle_event(w, ev);
                        p += sizeof(*ev) + ev->len;
                }
        }
}

/* ------------------------------------------------------------ lifecycle */

int watcher_new(struct event_base *base, struct store *store, const struct watcher_options *options,
                watch_event_fn on_event, void *userdata, struct watcher **ret_watcher)
{
        struct watcher *w;

        if (!base || !store || !on_event)
                return -EINVAL;
        w = calloc(1, sizeof(*w));
        if (!w)
                return -ENOMEM;
        w->base = base;
        w->store = store;
        w->on_event = on_event;
        w->userdata = userdata;
        if (options)
                w->options = *options;
        w->options.exclude_prefix = NULL;
        if (watcher_set_exclude_prefix(w, options ? options->exclude_prefix : NULL) < 0) {
                free(w);
                return -ENOMEM;
        }
        if (w->options.settle_s <= 0)
                w->options.settle_s = 0.5;
        if (w->options.lock_wait_max_s <= 0)
                w->options.lock_wait_max_s = 180;
        if (!w->options.max_watches_per_repo)
                w->options.max_watches_per_repo = 4096;
        w->fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
        if (w->fd < 0) {
                int r = -errno;
                free((char *)w->options.exclude_prefix);
                free(w);
                return r;
        }
        w->readable = event_new(base, w->fd, EV_READ | EV_PERSIST, on_readable, w);
        w->rescan_timer = evtimer_new(base, on_overflow_rescan, w);
        if (!w->readable || !w->rescan_timer || event_add(w->readable, NULL) < 0) {
                watcher_free(w);
                return -ENOMEM;
        }
        *ret_watcher = w;
        return 0;
}

static void repo_free(struct repo *repo)
{
        if (!repo)
                return;
        drop_repo_watches(repo);
        if (repo->settle_timer)
                event_free(repo->settle_timer);
        if (repo->retry_timer)
                event_free(repo->retry_timer);
        for (size_t i = 0; i < repo->n_branches; i++)
                free(repo->branches[i]);
        for (size_t i = 0; i < repo->n_operators; i++)
                free(repo->operators[i]);
        free(repo->branches);
        free(repo->operators);
        free(repo->path);
        free(repo->git_dir);
        free(repo->common_dir);
        free(repo);
}

static char **copy_strings(char *const *list, size_t n)
{
        char **out = calloc(n + 1, sizeof(*out));

        for (size_t i = 0; out && i < n; i++) {
                out[i] = strdup(list[i]);
                if (!out[i]) {
                        for (size_t j = 0; j < i; j++)
                                free(out[j]);
                        free(out);
                        return NULL;
                }
        }
        return out;
}

int watcher_add_repo(struct watcher *w, const struct watch_repo_spec *spec)
{
        struct repo *repo, **grown;

        for (size_t i = 0; i < w->n_repos; i++)
                if (strcmp(w->repos[i]->path, spec->path) == 0)
                        return -EEXIST;
        repo = calloc(1, sizeof(*repo));
        if (!repo)
                return -ENOMEM;
        repo->watcher = w;
        repo->path = strdup(spec->path);
        repo->branches = copy_strings(spec->branches, spec->n_branches);
        repo->n_branches = repo->branches ? spec->n_branches : 0;
        repo->operators = copy_strings(spec->operators, spec->n_operators);
        repo->n_operators = repo->operators ? spec->n_operators : 0;
        repo->settle_timer = evtimer_new(w->base, on_settled, repo);
        repo->retry_timer = evtimer_new(w->base, on_retry, repo);
        grown = realloc(w->repos, (w->n_repos + 1) * sizeof(*grown));
        if (!repo->path || !repo->branches || !repo->operators || !repo->settle_timer ||
            !repo->retry_timer || !grown) {
                if (grown)
                        w->repos = grown;
                repo_free(repo);
                return -ENOMEM;
        }
        w->repos = grown;
        w->repos[w->n_repos++] = repo;
        if (attach(repo) < 0)
                schedule_retry(repo);
        else
                scan_repo(repo);
        return 0;
}

int watcher_remove_repo(struct watcher *w, const char *path)
{
        for (size_t i = 0; i < w->n_repos; i++) {
                if (strcmp(w->repos[i]->path, path) == 0) {
                        struct repo *repo = w->repos[i];
                        w->repos[i] = w->repos[--w->n_repos];
                        if (repo->scanning) {
                                /* its scan job points at it: free it when that is back */
                                drop_repo_watches(repo);
                                evtimer_del(repo->settle_timer);
                                evtimer_del(repo->retry_timer);
                                repo->removed = true;
                        } else {
                                repo_free(repo);
                        }
                        return 0;
                }
        }
        return -ENOENT;
}

void watcher_rescan_all(struct watcher *w)
{
        for (size_t i = 0; i < w->n_repos; i++)
                scan_repo(w->repos[i]);
}

size_t watcher_watch_count(const struct watcher *w)
{
        return w ? w->n_watches : 0;
}

struct watcher *watcher_free(struct watcher *w)
{
        if (!w)
                return NULL;
        for (size_t i = 0; i < w->n_repos; i++)
                repo_free(w->repos[i]);
        free(w->repos);
        free(w->watches);
        if (w->readable)
                event_free(w->readable);
        if (w->rescan_timer)
                event_free(w->rescan_timer);
        if (w->fd >= 0)
                close(w->fd);
        free((char *)w->options.exclude_prefix);
        free(w);
        return NULL;
}

int watcher_set_exclude_prefix(struct watcher *w, const char *prefix)
{
        char *copy = NULL;

        if (prefix && !(copy = strdup(prefix)))
                return -ENOMEM;
        free((char *)w->options.exclude_prefix);
        w->options.exclude_prefix = copy;
        return 0;
}
