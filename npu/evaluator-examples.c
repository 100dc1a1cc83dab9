/* SPDX-License-Identifier: MIT */
/*
 * The example inputs an evaluator prepares once per operator
 * (npu/evaluator-internal.h): gen_data.py run through npu/golden.c in a
 * folder below the evaluator's scratch directory, shared by every request
 * for the same key, and copied into each candidate's work directory,
 * where the sandboxed simulator can read them.
 */
#include "evaluator-internal.h"
#include "golden.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <event2/event.h>

/*
 * Ready sets kept beyond this are dropped, least recently used first: a
 * daemon sees a new key for every commit that changes a manifest or a
 * gen_data.py, and a dropped one is only prepared again.
 */
#define MAX_READY_SETS 16

struct npu_example_wait {
        struct npu_example_set *set;
        npu_examples_ready_fn ready;
        void *userdata;
        bool cancelled; /* the last request, cancelled: ready(NULL) once the Python is dead */
        struct npu_example_wait *next;
};

struct npu_example_set {
        struct npu_examples *owner; /* NULL once its evaluator is gone */
        struct npu_example_set *next;
        char key[SHA256_HEX_SIZE];
        char dir[PATH_MAX];
        char name[256];                /* the operator's, for the log */
        struct npu_manifest *manifest; /* of the copy in dir/op, while preparing */
        struct npu_golden *golden;     /* while preparing */
        struct event *finish;          /* the golden's end, handled from the loop */
        bool ready;
        bool cancelled; /* no request wants it any more: it ends unused */
        json_t *files;  /* {case: {input: [paths]}}, once ready */
        char *origin;
        unsigned long long used;
        struct npu_example_wait *waiters;
};

struct npu_examples {
        struct npu_examples_options options;
        char *scratch_dir;
        char dir[PATH_MAX]; /* made on first use */
        struct npu_example_set *sets;
        unsigned long long tick, made;
};

int npu_examples_new(const struct npu_examples_options *options, struct npu_examples **ret)
{
        struct npu_examples *x = calloc(1, sizeof(*x));

        if (!x)
                return -ENOMEM;
        x->options = *options;
        x->scratch_dir = strdup(options->scratch_dir);
        if (!x->scratch_dir) {
                free(x);
                return -ENOMEM;
        }
        x->options.scratch_dir = x->scratch_dir;
        *ret = x;
        return 0;
}

static void set_free(struct npu_example_set *s)
{
        struct npu_example_wait *w, *next;

        if (!s)
                return;
        for (w = s->waiters; w; w = next) {
                next = w->next;
                free(w);
        }
        if (s->finish)
                event_free(s->finish);
        npu_golden_free(s->golden);
        npu_manifest_free(s->manifest);
        json_decref(s->files);
        free(s->origin);
        if (s->dir[0])
                rm_rf(s->dir);
        free(s);
}

static void unlink_set(struct npu_examples *x, struct npu_example_set *s)
{
        for (struct npu_example_set **p = &x->sets; *p; p = &(*p)->next)
                if (*p == s) {
                        *p = s->next;
                        s->next = NULL;
                        return;
                }
}

struct npu_examples *npu_examples_free(struct npu_examples *x)
{
        struct npu_example_set *s, *next;

        if (!x)
                return NULL;
        for (s = x->sets; s; s = next) {
                next = s->next;
                if (s->ready) {
                        set_free(s);
                        continue;
                }
                /*
                 * Its Python still runs, so evaluations still wait for it,
                 * which they should not when their evaluator goes: they are
                 * never told.  It ends on the loop and frees itself there.
                 */
                for (struct npu_example_wait *w = s->waiters, *n; w; w = n) {
                        n = w->next;
                        free(w);
                }
                s->waiters = NULL;
                s->owner = NULL;
                s->next = NULL;
                s->cancelled = true;
                npu_golden_cancel(s->golden);
        }
        if (x->dir[0])
                rm_rf(x->dir);
        free(x->scratch_dir);
        free(x);
        return NULL;
}

bool npu_manifest_has_examples(const struct npu_manifest *m)
{
        for (size_t i = 0; i < m->n_cases; i++)
                if (json_object_get(m->cases[i].golden, "example"))
                        return true;
        return false;
}

/* "example inputs: A example, B seeded" for the example cases of m; files NULL: all prepared. */
static char *origin_of(const struct npu_manifest *m, const json_t *files)
{
        struct strbuf t = { 0 };

        strbuf_puts(&t, "example inputs:");
        for (size_t i = 0; i < m->n_cases; i++) {
                if (!json_object_get(m->cases[i].golden, "example"))
                        continue;
                strbuf_printf(&t, " %s %s,", m->cases[i].name,
                              !files || json_object_get(files, m->cases[i].name) ? "example"
                                                                                 : "seeded");
        }
        return strbuf_detach(&t);
}

char *npu_examples_expected_origin(const struct npu_manifest *m)
{
        return origin_of(m, NULL);
}

const char *npu_example_set_origin(const struct npu_example_set *s)
{
        return s->origin;
}

const struct npu_example_set *npu_examples_peek(struct npu_examples *x, const char *key)
{
        for (struct npu_example_set *s = x->sets; s; s = s->next)
                if (s->ready && strcmp(s->key, key) == 0)
                        return s;
        return NULL;
}

/* Keeps at most MAX_READY_SETS ready sets, dropping the least recently used but keep. */
static void trim_ready(struct npu_examples *x, const struct npu_example_set *keep)
{
        for (;;) {
                struct npu_example_set *oldest = NULL;
                size_t n = 0;
                for (struct npu_example_set *s = x->sets; s; s = s->next) {
                        if (!s->ready)
                                continue;
                        n++;
                        if (s != keep && (!oldest || s->used < oldest->used))
                                oldest = s;
                }
                if (n <= MAX_READY_SETS || !oldest)
                        return;
                unlink_set(x, oldest);
                set_free(oldest);
        }
}

/* Says, once per preparation, which example cases run on their example's inputs and why not. */
static void log_outcome(const struct npu_example_set *s)
{
        const struct npu_manifest *m = s->manifest;
        size_t prepared = json_object_size(s->files);
        const char *example = NULL;

        for (size_t i = 0; i < m->n_cases; i++) {
                const char *why = npu_golden_unprepared(s->golden, i);
                if (!example && json_object_get(s->files, m->cases[i].name))
                        example = json_string_value(json_object_get(m->cases[i].golden, "example"));
                if (why)
                        log_warning(
                            "%s: case %s runs on seeded inputs, not on its example's: "
                            "%s (%s); a tiling that reads an input's values may fail on "
                            "them",
                            s->name, m->cases[i].name, why,
                            json_string_value(json_object_get(m->cases[i].golden, "example")));
        }
        if (prepared)
                log_info("%s: %zu case%s run%s on the inputs of %s, written by gen_data.py once "
                         "for every candidate",
                         s->name, prepared, prepared == 1 ? "" : "s", prepared == 1 ? "s" : "",
                         example ?: "the examples");
}

/* From the loop, after the golden's preparation ended. */
static void on_finish(evutil_socket_t fd, short what, void *arg)
{
        struct npu_example_set *s = arg;
        struct npu_examples *x = s->owner;
        struct npu_example_wait *w, *next;

        (void)fd;
        (void)what;
        if (s->cancelled) {
                /* unlinked already, or its evaluator is gone: its cancelled
                 * requests hear that it ended, now that its Python is dead */
                w = s->waiters;
                s->waiters = NULL;
                for (; w; w = next) {
                        next = w->next;
                        w->ready(NULL, w->userdata);
                        free(w);
                }
                set_free(s);
                return;
        }
        s->files = json_deep_copy(npu_golden_input_files(s->golden));
        s->origin = s->files ? origin_of(s->manifest, s->files) : NULL;
        if (!s->files || !s->origin) {
                /* out of memory: every case runs on seeded inputs, which the identity says */
                json_decref(s->files);
                s->files = json_object();
                free(s->origin);
                s->origin = strdup("example inputs: none");
        }
        log_outcome(s);
        s->golden = npu_golden_free(s->golden);
        s->manifest = npu_manifest_free(s->manifest);
        s->ready = true;
        s->used = ++x->tick;
        trim_ready(x, s);
        w = s->waiters;
        s->waiters = NULL;
        for (; w; w = next) {
                next = w->next;
                w->ready(s, w->userdata);
                free(w);
        }
}

static void on_golden_prepared(void *userdata)
{
        struct npu_example_set *s = userdata;

        /* never from inside npu_examples_get: the waiters resume from the loop */
        event_active(s->finish, 0, 0);
}

static int add_waiter(struct npu_example_set *s, npu_examples_ready_fn ready, void *userdata,
                      struct npu_example_wait **ret)
{
        struct npu_example_wait *w = calloc(1, sizeof(*w)), **p;

        if (!w)
                return -ENOMEM;
        w->set = s;
        w->ready = ready;
        w->userdata = userdata;
        /* in the order they came: the first (an episode's baseline) resumes first */
        for (p = &s->waiters; *p; p = &(*p)->next)
                ;
        *p = w;
        *ret = w;
        return 0;
}

/* A new preparation: the operator laid out in its own folder, gen_data.py started. */
static int start_set(struct npu_examples *x, const char *key, npu_examples_write_fn write_op,
                     void *ctx, struct npu_example_set **ret)
{
        struct npu_example_set *s;
        char op_dir[PATH_MAX], work_dir[PATH_MAX], err[1024] = "";
        int r;

        if (!x->dir[0]) {
                if (format_path(x->dir, sizeof(x->dir), "%s/examples-XXXXXX", x->scratch_dir) < 0) {
                        x->dir[0] = '\0';
                        return -ENAMETOOLONG;
                }
                if (!mkdtemp(x->dir)) {
                        r = -errno;
                        x->dir[0] = '\0';
                        return r;
                }
        }
        s = calloc(1, sizeof(*s));
        if (!s)
                return -ENOMEM;
        s->owner = x;
        snprintf(s->key, sizeof(s->key), "%s", key);
        r = format_path(s->dir, sizeof(s->dir), "%s/%.16s-%llu", x->dir, key, ++x->made);
        if (r == 0)
                r = format_path(op_dir, sizeof(op_dir), "%s/op", s->dir);
        if (r == 0)
                r = format_path(work_dir, sizeof(work_dir), "%s/work", s->dir);
        if (r < 0) {
                s->dir[0] = '\0';
                goto fail;
        }
        r = mkdir_p(work_dir);
        if (r == 0)
                r = write_op(op_dir, ctx);
        if (r == 0)
                r = npu_manifest_load(op_dir, &s->manifest, err, sizeof(err));
        if (r < 0) {
                if (err[0])
                        log_error("%s", err);
                goto fail;
        }
        snprintf(s->name, sizeof(s->name), "%s", s->manifest->name);
        {
                const struct npu_golden_options options = {
                        .work_dir = work_dir,
                        .only_case = -1,
                        .sandbox = x->options.sandbox,
                };
                r = npu_golden_new(x->options.runner, s->manifest, &options, &s->golden);
        }
        if (r < 0)
                goto fail;
        s->finish = event_new(x->options.base, -1, 0, on_finish, s);
        if (!s->finish) {
                r = -ENOMEM;
                goto fail;
        }
        *ret = s;
        return 0;
fail:
        set_free(s);
        return r;
}

int npu_examples_get(struct npu_examples *x, const char *key, npu_examples_write_fn write_op,
                     void *ctx, npu_examples_ready_fn ready, void *userdata,
                     const struct npu_example_set **ret_set, struct npu_example_wait **ret_wait)
{
        struct npu_example_set *s;
        int r;

        for (s = x->sets; s; s = s->next)
                if (strcmp(s->key, key) == 0)
                        break;
        if (s && s->cancelled) {
                /* it ends unused (its cancelled requests still hold it): start anew */
                unlink_set(x, s);
                s = NULL;
        }
        if (s && s->ready) {
                s->used = ++x->tick;
                *ret_set = s;
                return 1;
        }
        if (s)
                return add_waiter(s, ready, userdata, ret_wait);
        r = start_set(x, key, write_op, ctx, &s);
        if (r < 0)
                return r;
        r = add_waiter(s, ready, userdata, ret_wait);
        if (r < 0) {
                set_free(s);
                return r;
        }
        s->next = x->sets;
        x->sets = s;
        npu_golden_prepare(s->golden, on_golden_prepared, s);
        return 0;
}

int npu_examples_cancel(struct npu_example_wait *w)
{
        struct npu_example_set *s;
        bool others = false;

        if (!w)
                return 0;
        if (w->cancelled)
                return 1;
        s = w->set;
        for (struct npu_example_wait *o = s->waiters; o; o = o->next)
                others |= o != w && !o->cancelled;
        if (others || s->ready) {
                for (struct npu_example_wait **p = &s->waiters; *p; p = &(*p)->next)
                        if (*p == w) {
                                *p = w->next;
                                break;
                        }
                free(w);
                return 0;
        }
        /*
         * The last request: the Python is killed, and the request hears of
         * it once it is dead, so that no preparation outlives every request
         * (an evaluator is freed once its evaluations ended).  The next
         * request prepares anew, in a folder of its own.
         */
        w->cancelled = true;
        s->cancelled = true;
        if (s->owner)
                unlink_set(s->owner, s);
        npu_golden_cancel(s->golden);
        return 1;
}

/* ------------------------------------------------------------ copies */

/* Copies src, a file a sandboxed child wrote, to dst (new), never following a link. */
static int copy_untrusted(const char *src, const char *dst, char *err, size_t err_size)
{
        char buf[65536];
        struct stat st;
        int in, out, r = 0;

        in = open_no_symlinks(src, O_RDONLY | O_CLOEXEC, 0);
        if (in < 0)
                return format_error(err, err_size, in, "%s: cannot read: %s", src, strerror(-in));
        if (fstat(in, &st) < 0 || !S_ISREG(st.st_mode)) {
                close(in);
                return format_error(err, err_size, -EINVAL, "%s: not a regular file", src);
        }
        out = open(dst, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
        if (out < 0) {
                r = -errno;
                close(in);
                return format_error(err, err_size, r, "%s: cannot create: %s", dst, strerror(-r));
        }
        for (;;) {
                ssize_t n = read(in, buf, sizeof(buf)), done = 0;
                if (n < 0 && errno == EINTR)
                        continue;
                if (n <= 0) {
                        r = n < 0 ? -errno : 0;
                        break;
                }
                while (done < n) {
                        ssize_t m = write(out, buf + done, (size_t)(n - done));
                        if (m < 0 && errno == EINTR)
                                continue;
                        if (m <= 0) {
                                r = m < 0 ? -errno : -EIO;
                                break;
                        }
                        done += m;
                }
                if (r < 0)
                        break;
        }
        if (close(out) < 0 && r == 0)
                r = -errno;
        close(in);
        if (r < 0)
                return format_error(err, err_size, r, "%s: cannot copy to %s: %s", src, dst,
                                    strerror(-r));
        return 0;
}

int npu_example_set_copy(const struct npu_example_set *s, const struct npu_manifest *m,
                         const char *dir, json_t **ret_files, char *err, size_t err_size)
{
        json_t *out = json_object();
        int r = 0;

        if (!out)
                return -ENOMEM;
        for (size_t k = 0; r == 0 && k < m->n_cases; k++) {
                const json_t *given = json_object_get(s->files, m->cases[k].name);
                json_t *copied;
                char case_dir[PATH_MAX];
                if (!given)
                        continue;
                copied = json_object();
                if (!copied) {
                        r = -ENOMEM;
                        break;
                }
                r = format_path(case_dir, sizeof(case_dir), "%s/case_%zu", dir, k);
                if (r == 0)
                        r = mkdir_p(case_dir);
                for (size_t i = 0; r == 0 && i < m->n_inputs; i++) {
                        const json_t *list = json_object_get(given, m->inputs[i].name), *f;
                        json_t *paths;
                        size_t j;
                        if (!list)
                                continue;
                        paths = json_array();
                        if (!paths || json_object_set_new(copied, m->inputs[i].name, paths) < 0) {
                                r = -ENOMEM;
                                break;
                        }
                        json_array_foreach(list, j, f)
                        {
                                char dst[PATH_MAX];
                                if (r < 0)
                                        break;
                                r = json_array_size(list) > 1
                                        ? format_path(dst, sizeof(dst), "%s/%s_%zu.bin", case_dir,
                                                      m->inputs[i].name, j)
                                        : format_path(dst, sizeof(dst), "%s/%s.bin", case_dir,
                                                      m->inputs[i].name);
                                if (r == 0)
                                        r = copy_untrusted(json_string_value(f) ?: "", dst, err,
                                                           err_size);
                                if (r == 0 && json_array_append_new(paths, json_string(dst)) < 0)
                                        r = -ENOMEM;
                        }
                }
                if (r == 0 && json_object_set_new(out, m->cases[k].name, copied) < 0)
                        r = -ENOMEM;
                else if (r < 0)
                        json_decref(copied);
        }
        if (r < 0) {
                if (!err[0])
                        format_error(err, err_size, r, "%s: cannot copy the example inputs: %s",
                                     dir, strerror(-r));
                json_decref(out);
                return r;
        }
        *ret_files = out;
        return 0;
}
