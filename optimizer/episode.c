/* SPDX-License-Identifier: MIT */
/*
 * The episode state machine: baseline, then propose / evaluate / confirm /
 * record until the budget is spent, with Stage I (tiling genes), Stage II
 * (motif rewrites of the kernel, guided by the experience bank) or the
 * paper's alternation of the two, each stage starting from the best pair
 * the other left.  The record, search state and best texts included, is
 * persisted after every evaluation so that a restart resumes mid-search
 * and re-evaluations are memo hits.
 */
#include "optimizer.h"
#include "stage2-internal.h"

#include "common/common.h"
#include "npu/npu.h"
#include "store/store.h"

#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include <event2/event.h>

#define CONFIRM_SEED_OFFSET 1000003
#define MAX_OP_FILES        32
#define MAX_FILE_BYTES      (4u << 20)
#define DEFAULT_STEPS       10

enum phase {
        PHASE_BASELINE,
        PHASE_CONFIRM_BASELINE, /* the reference outputs for the confirmation seed */
        PHASE_SEARCH,
        PHASE_CONFIRM,
        PHASE_DONE,
};

/* One file of the operator as the episode sees it. */
struct op_file {
        char *path;      /* relative to the operator directory */
        char *disk;      /* as in the operator directory */
        char *best;      /* the best pair's text */
        char *gene_base; /* the text the located genes lie in; NULL: holds no genes */
        char *cand;      /* the candidate in flight's text; NULL: as best */
        bool is_source;  /* op_kernel/ or op_host/: candidates may change it */
};

struct episode {
        struct npu_evaluator *evaluator;
        struct store *store;
        struct npu_manifest *manifest;
        struct episode_options options;
        char *id;
        episode_progress_fn progress;
        episode_done_fn done;
        void *userdata;

        struct gene *genes; /* as found in the baseline; the search borrows them */
        size_t n_genes;
        struct gene *located; /* the same genes in the current gene_base texts */
        bool *lost;           /* a Stage II rewrite took the gene's literal away */
        struct gene *apply_genes;
        int64_t *apply_values;
        int64_t best_values[GENES_MAX];
        struct search *search;
        struct search_options search_options;

        struct op_file files[MAX_OP_FILES];
        size_t n_files;

        enum phase phase;
        bool cancelled;
        bool stopping;
        bool out_of_time;         /* the wall-clock budget ran out */
        char *log_context;        /* owned copy of options.log_context */
        struct event *wall_timer; /* fires at the wall-clock budget */
        struct npu_evaluation *in_flight;
        json_t *record;
        json_t *baseline;         /* kept reference result */
        json_t *confirm_baseline; /* the reference at the confirmation seed */
        int pending_stage;        /* 1 or 2 */
        int64_t pending[GENES_MAX];
        enum search_technique pending_technique;
        json_t *pending_action; /* Stage II's planned action */
        json_t *pending_result; /* awaiting confirmation */
        struct npu_override overrides[MAX_OP_FILES];
        size_t n_overrides;
        uint64_t rng;
};

static const char *const strategy_names[] = {
        [EPISODE_STAGE1] = "stage1", [EPISODE_BON] = "bon",
        [EPISODE_STAGE2] = "stage2", [EPISODE_FULL] = "full",
        [EPISODE_EVOLVE] = "evolve", [EPISODE_STAGE2_RANDOM] = "stage2-random",
};

const char *episode_strategy_name(enum episode_strategy s)
{
        return (size_t)s < ARRAY_SIZE(strategy_names) ? strategy_names[s] : "?";
}

int episode_strategy_from_name(const char *name, enum episode_strategy *ret)
{
        for (size_t i = 0; i < ARRAY_SIZE(strategy_names); i++) {
                if (name && strcmp(strategy_names[i], name) == 0) {
                        *ret = (enum episode_strategy)i;
                        return 0;
                }
        }
        return -EINVAL;
}

static bool uses_stage1(const struct episode *ep)
{
        return ep->options.strategy != EPISODE_STAGE2 &&
               ep->options.strategy != EPISODE_STAGE2_RANDOM;
}

static bool uses_stage2(const struct episode *ep)
{
        return ep->options.strategy != EPISODE_STAGE1 && ep->options.strategy != EPISODE_BON;
}

static void episode_key(char *buf, size_t size, const char *id)
{
        snprintf(buf, size, "episode/%s", id);
}

int episode_load(struct store *store, const char *id, json_t **ret_record)
{
        char key[512];

        episode_key(key, sizeof(key), id);
        return store_get_json(store, STORE_EPISODES, key, ret_record);
}

static void clear_candidate(struct episode *ep)
{
        for (size_t i = 0; i < ep->n_files; i++) {
                free(ep->files[i].cand);
                ep->files[i].cand = NULL;
        }
        ep->n_overrides = 0;
        json_decref(ep->pending_action);
        ep->pending_action = NULL;
}

static void episode_free(struct episode *ep)
{
        if (!ep)
                return;
        if (ep->wall_timer)
                event_free(ep->wall_timer);
        clear_candidate(ep);
        for (size_t i = 0; i < ep->n_files; i++) {
                free(ep->files[i].path);
                free(ep->files[i].disk);
                free(ep->files[i].best);
                free(ep->files[i].gene_base);
        }
        if (ep->baseline)
                rm_rf(json_string_value(json_object_get(ep->baseline, "scratch_dir")));
        if (ep->confirm_baseline)
                rm_rf(json_string_value(json_object_get(ep->confirm_baseline, "scratch_dir")));
        json_decref(ep->baseline);
        json_decref(ep->confirm_baseline);
        json_decref(ep->pending_result);
        json_decref(ep->record);
        search_free(ep->search);
        free(ep->genes);
        free(ep->located);
        free(ep->lost);
        free(ep->apply_genes);
        free(ep->apply_values);
        npu_manifest_free(ep->manifest);
        free(ep->id);
        free(ep->log_context);
        free(ep);
}

/* ------------------------------------------------------------ the best pair */

static struct op_file *file_named(struct episode *ep, const char *path)
{
        for (size_t i = 0; i < ep->n_files; i++)
                if (strcmp(ep->files[i].path, path) == 0)
                        return &ep->files[i];
        return NULL;
}

/* What persist() writes so that a resumed episode has the same best pair. */
static json_t *pair_json(struct episode *ep, struct store_batch *b)
{
        json_t *values = json_array(), *best = json_object(), *bases = json_object();
        json_t *located = json_array();
        char hex[SHA256_HEX_SIZE];

        for (size_t g = 0; g < ep->n_genes; g++) {
                json_array_append_new(values, json_integer(ep->best_values[g]));
                json_array_append_new(
                    located, ep->lost[g] ? json_null()
                                         : json_pack("[I, I, I]", (json_int_t)ep->located[g].start,
                                                     (json_int_t)ep->located[g].len,
                                                     (json_int_t)ep->located[g].value));
        }
        for (size_t i = 0; i < ep->n_files; i++) {
                const struct op_file *f = &ep->files[i];
                if (strcmp(f->best, f->disk) != 0) {
                        store_blob_put(b, f->best, strlen(f->best), hex);
                        json_object_set_new(best, f->path, json_string(hex));
                }
                if (f->gene_base && strcmp(f->gene_base, f->disk) != 0) {
                        store_blob_put(b, f->gene_base, strlen(f->gene_base), hex);
                        json_object_set_new(bases, f->path, json_string(hex));
                }
        }
        return json_pack("{s:o, s:o, s:o, s:o}", "values", values, "best", best, "gene_base", bases,
                         "located", located);
}

static int blob_text(struct store *store, const json_t *sha, char **ret)
{
        void *data = NULL;
        size_t len = 0;
        char *text;
        int r;

        if (!json_is_string(sha))
                return -EBADMSG;
        r = store_blob_get(store, json_string_value(sha), &data, &len);
        if (r < 0)
                return r;
        text = malloc(len + 1);
        if (!text) {
                free(data);
                return -ENOMEM;
        }
        memcpy(text, data, len);
        text[len] = '\0';
        free(data);
        *ret = text;
        return 0;
}

/* Restores the best pair of a resumed record; -errno leaves a mixed state. */
static int restore_pair(struct episode *ep, const json_t *pair)
{
        const json_t *values = json_object_get(pair, "values");
        const json_t *located = json_object_get(pair, "located");
        const char *path;
        json_t *sha;
        int r;

        if (!pair)
                return 0;
        if (json_array_size(values) != ep->n_genes || json_array_size(located) != ep->n_genes)
                return -EBADMSG;
        json_object_foreach((json_t *)json_object_get(pair, "best"), path, sha)
        {
                struct op_file *f = file_named(ep, path);
                char *text = NULL;
                if (!f)
                        return -EBADMSG;
                r = blob_text(ep->store, sha, &text);
                if (r < 0)
                        return r;
                free(f->best);
                f->best = text;
        }
        json_object_foreach((json_t *)json_object_get(pair, "gene_base"), path, sha)
        {
                struct op_file *f = file_named(ep, path);
                char *text = NULL;
                if (!f || !f->gene_base)
                        return -EBADMSG;
                r = blob_text(ep->store, sha, &text);
                if (r < 0)
                        return r;
                free(f->gene_base);
                f->gene_base = text;
        }
        for (size_t g = 0; g < ep->n_genes; g++) {
                const json_t *at = json_array_get(located, g);
                ep->best_values[g] = json_integer_value(json_array_get(values, g));
                ep->lost[g] = json_is_null(at);
                if (ep->lost[g])
                        continue;
                ep->located[g].start = (size_t)json_integer_value(json_array_get(at, 0));
                ep->located[g].len = (size_t)json_integer_value(json_array_get(at, 1));
                ep->located[g].value = json_integer_value(json_array_get(at, 2));
        }
        return 0;
}

/* Writes the record, search state and best pair included, in one synced batch. */
static int persist(struct episode *ep)
{
        struct store_batch *b = store_batch_new(ep->store);
        char key[512];
        int r;

        if (!b)
                return -ENOMEM;
        json_object_set_new(ep->record, "search", search_to_json(ep->search));
        json_object_set_new(ep->record, "pair", pair_json(ep, b));
        json_object_set_new(ep->record, "rng", json_sprintf("%016" PRIx64, ep->rng));
        json_object_set_new(ep->record, "updated", json_integer((json_int_t)time(NULL)));
        episode_key(key, sizeof(key), ep->id);
        r = store_batch_put_json(b, STORE_EPISODES, key, ep->record);
        if (r == 0)
                r = store_batch_commit(b);
        store_batch_free(b);
        return r;
}

static void finish(struct episode *ep, const char *state, const char *error_kind,
                   const char *message)
{
        json_t *record;

        ep->phase = PHASE_DONE;
        json_object_set_new(ep->record, "state", json_string(state));
        if (message)
                json_object_set_new(
                    ep->record, "error",
                    json_pack("{s:s, s:s}", "kind", error_kind, "message", message));
        json_object_set_new(ep->record, "finished", json_integer((json_int_t)time(NULL)));
        if (persist(ep) < 0)
                log_msg(LOG_ERR, ep->options.log_context, "cannot record the episode's end");
        record = json_incref(ep->record);
        ep->done(record, ep->userdata);
        episode_free(ep);
}

static int counter(struct episode *ep, const char *name)
{
        return (int)json_integer_value(json_object_get(ep->record, name));
}

static void bump(struct episode *ep, const char *name)
{
        json_object_set_new(ep->record, name, json_integer(counter(ep, name) + 1));
}

/* Adds one to object[outer][inner] of the record, creating what is missing. */
static void bump_in(struct episode *ep, const char *outer, const char *middle, const char *inner)
{
        json_t *o = json_object_get(ep->record, outer), *m;

        if (!o) {
                o = json_object();
                json_object_set_new(ep->record, outer, o);
        }
        m = json_object_get(o, middle);
        if (!m) {
                m = json_object();
                json_object_set_new(o, middle, m);
        }
        json_object_set_new(m, inner,
                            json_integer(json_integer_value(json_object_get(m, inner)) + 1));
}

static void report(struct episode *ep, const char *what, int stage, const json_t *result,
                   bool new_best)
{
        double best = 0;
        struct episode_progress p = {
                .used = counter(ep, "evaluations"),
                .budget = ep->options.budget,
                .memo_hits = counter(ep, "memo_hits"),
                .what = what,
                .stage = stage,
                .status = json_string_value(json_object_get(result, "status")),
                .latency_us = json_number_value(json_object_get(result, "latency_us")),
                .new_best = new_best,
        };

        search_best(ep->search, &best);
        p.best_us = best;
        if (ep->progress)
                ep->progress(&p, ep->userdata);
}

/* ------------------------------------------------------------ files and genes */

static int read_text(const char *path, char **ret)
{
        FILE *f = fopen(path, "re");
        char *text = NULL;
        long size;
        int r = 0;

        if (!f)
                return -errno;
        if (fseek(f, 0, SEEK_END) < 0 || (size = ftell(f)) < 0 || size > MAX_FILE_BYTES ||
            fseek(f, 0, SEEK_SET) < 0) {
                r = -EFBIG;
                goto out;
        }
        text = malloc((size_t)size + 1);
        if (!text) {
                r = -ENOMEM;
                goto out;
        }
        if (fread(text, 1, (size_t)size, f) != (size_t)size) {
                free(text);
                r = -EIO;
                goto out;
        }
        text[size] = '\0';
        *ret = text;
out:
        fclose(f);
        return r;
}

static int add_file(struct episode *ep, const char *rel, bool is_source)
{
        struct op_file *f;
        char path[PATH_MAX];
        int r;

        if (ep->n_files == MAX_OP_FILES)
                return -E2BIG;
        if (format_path(path, sizeof(path), "%s/%s", ep->manifest->dir, rel) < 0)
                return -ENAMETOOLONG;
        f = &ep->files[ep->n_files];
        memset(f, 0, sizeof(*f));
        r = read_text(path, &f->disk);
        if (r < 0)
                return r;
        f->path = strdup(rel);
        f->best = strdup(f->disk);
        if (!f->path || !f->best) {
                free(f->path);
                free(f->best);
                free(f->disk);
                return -ENOMEM;
        }
        f->is_source = is_source;
        ep->n_files++;
        return 0;
}

static bool is_regular_file(const char *path)
{
        struct stat st;

        return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

static int by_name(const void *a, const void *b)
{
        return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The op_kernel/ and op_host/ files, sorted, and ascendopt.json (read only). */
static int load_files(struct episode *ep)
{
        static const char *const subdirs[] = { "op_host", "op_kernel" };
        int r = 0;

        for (size_t s = 0; s < ARRAY_SIZE(subdirs) && r == 0; s++) {
                char dir[PATH_MAX], *names[MAX_OP_FILES];
                size_t n = 0;
                struct dirent *e;
                DIR *d;
                if (format_path(dir, sizeof(dir), "%s/%s", ep->manifest->dir, subdirs[s]) < 0)
                        return -ENAMETOOLONG;
                d = opendir(dir);
                if (!d)
                        return -errno;
                while ((e = readdir(d)) && n < MAX_OP_FILES) {
                        char full[PATH_MAX];
                        if (e->d_name[0] == '.' ||
                            format_path(full, sizeof(full), "%s/%s", dir, e->d_name) < 0 ||
                            !is_regular_file(full))
                                continue;
                        names[n] = strdup(e->d_name);
                        if (names[n])
                                n++;
                }
                closedir(d);
                qsort(names, n, sizeof(*names), by_name);
                for (size_t i = 0; i < n; i++) {
                        char rel[PATH_MAX];
                        if (r == 0)
                                r = format_path(rel, sizeof(rel), "%s/%s", subdirs[s], names[i]);
                        if (r == 0)
                                r = add_file(ep, rel, true);
                        free(names[i]);
                }
        }
        if (r == 0)
                r = add_file(ep, "ascendopt.json", false);
        for (size_t g = 0; g < ep->n_genes && r == 0; g++) {
                struct op_file *f = file_named(ep, ep->genes[g].file);
                if (!f)
                        return -ENOENT;
                if (!f->gene_base && !(f->gene_base = strdup(f->disk)))
                        return -ENOMEM;
        }
        return r;
}

/* Where line `start` of text begins, and the length of that line. */
static size_t line_bounds(const char *text, size_t at, size_t *ret_len)
{
        size_t start = at, end = at;

        while (start > 0 && text[start - 1] != '\n')
                start--;
        while (text[end] && text[end] != '\n')
                end++;
        *ret_len = end - start;
        return start;
}

/* How many lines of text equal line (len bytes), and the index of the one at before_pos. */
static size_t count_lines(const char *text, const char *line, size_t len, size_t before_pos,
                          size_t *ret_ordinal)
{
        size_t count = 0, ordinal = 0;

        for (const char *p = text; *p;) {
                const char *eol = strchr(p, '\n');
                size_t l = eol ? (size_t)(eol - p) : strlen(p);
                if (l == len && memcmp(p, line, len) == 0) {
                        if ((size_t)(p - text) < before_pos)
                                ordinal++;
                        count++;
                }
                p += l + (eol ? 1 : 0);
        }
        if (ret_ordinal)
                *ret_ordinal = ordinal;
        return count;
}

/* The start of the ordinal-th line of text equal to line, or (size_t)-1. */
static size_t nth_line(const char *text, const char *line, size_t len, size_t ordinal)
{
        for (const char *p = text; *p;) {
                const char *eol = strchr(p, '\n');
                size_t l = eol ? (size_t)(eol - p) : strlen(p);
                if (l == len && memcmp(p, line, len) == 0 && ordinal-- == 0)
                        return (size_t)(p - text);
                p += l + (eol ? 1 : 0);
        }
        return (size_t)-1;
}

/*
 * Finds the genes of file f again after a Stage II rewrite replaced its
 * gene_base old_text with new_text: first on an identical line (the
 * rewrite did not touch it), else by name among the genes the finder sees
 * in the new text, else the gene is lost to Stage I from now on.  The best
 * genome takes the values found.
 */
static void relocate_genes(struct episode *ep, const char *path, const char *old_text,
                           const char *new_text)
{
        struct gene *found = NULL;
        size_t n_found = 0;
        char err[256];

        if (genes_find_in_text(path, new_text, strlen(new_text), &found, &n_found, err,
                               sizeof(err)) < 0)
                n_found = 0;
        for (size_t g = 0; g < ep->n_genes; g++) {
                struct gene *l = &ep->located[g];
                size_t line_len, line_start, ordinal = 0, same_name = 0, at;
                bool done = false;
                if (strcmp(l->file, path) != 0 || ep->lost[g])
                        continue;
                line_start = line_bounds(old_text, l->start, &line_len);
                if (count_lines(old_text, old_text + line_start, line_len, line_start, &ordinal) ==
                    count_lines(new_text, old_text + line_start, line_len, 0, NULL)) {
                        at = nth_line(new_text, old_text + line_start, line_len, ordinal);
                        if (at != (size_t)-1) {
                                l->start = at + (l->start - line_start);
                                done = true;
                        }
                }
                for (size_t h = 0; h < g && !done; h++)
                        same_name += strcmp(ep->genes[h].file, path) == 0 &&
                                     strcmp(ep->genes[h].name, l->name) == 0;
                for (size_t k = 0; k < n_found && !done; k++) {
                        if (strcmp(found[k].name, l->name) != 0 || same_name-- > 0)
                                continue;
                        l->start = found[k].start;
                        l->len = found[k].len;
                        l->line = found[k].line;
                        l->value = found[k].value;
                        ep->best_values[g] = found[k].value;
                        done = true;
                }
                if (!done) {
                        ep->lost[g] = true;
                        log_msg(LOG_INFO, ep->options.log_context,
                                "gene %s of %s is gone after a kernel rewrite; Stage I leaves it",
                                l->name, path);
                }
        }
        free(found);
}

/* Overrides for the candidate: every source whose text is not the disk's (and gene files). */
static void build_overrides(struct episode *ep)
{
        ep->n_overrides = 0;
        for (size_t i = 0; i < ep->n_files; i++) {
                const struct op_file *f = &ep->files[i];
                const char *text = f->cand ? f->cand : f->best;
                if (!f->is_source || (!f->gene_base && strcmp(text, f->disk) == 0))
                        continue;
                ep->overrides[ep->n_overrides].path = f->path;
                ep->overrides[ep->n_overrides].text = text;
                ep->n_overrides++;
        }
}

/* Stage I's candidate: the genome written into the gene files of the best pair. */
static int build_genome_candidate(struct episode *ep, const int64_t *values)
{
        size_t n = 0;

        clear_candidate(ep);
        for (size_t g = 0; g < ep->n_genes; g++) {
                if (ep->lost[g])
                        continue;
                ep->apply_genes[n] = ep->located[g];
                ep->apply_values[n] = values[g];
                n++;
        }
        for (size_t i = 0; i < ep->n_files; i++) {
                struct op_file *f = &ep->files[i];
                int r;
                if (!f->gene_base)
                        continue;
                r = genes_apply(f->path, f->gene_base, strlen(f->gene_base), ep->apply_genes,
                                ep->apply_values, n, &f->cand);
                if (r < 0)
                        return r;
        }
        build_overrides(ep);
        return 0;
}

/* The best pair's texts as a motif file set (borrowed pointers). */
static size_t best_file_set(struct episode *ep, struct motif_file *set)
{
        for (size_t i = 0; i < ep->n_files; i++) {
                set[i].path = ep->files[i].path;
                set[i].text = ep->files[i].best;
        }
        return ep->n_files;
}

static json_t *genome_json(const struct episode *ep, const int64_t *values)
{
        json_t *genome = json_object();

        for (size_t g = 0; g < ep->n_genes; g++) {
                char key[300];
                snprintf(key, sizeof(key), "%s:%u:%s", ep->genes[g].file, ep->genes[g].line,
                         ep->genes[g].name);
                json_object_set_new(genome, key, json_integer(values[g]));
        }
        return genome;
}

static const json_t *best_summary(struct episode *ep)
{
        const json_t *best = json_object_get(ep->record, "best");

        return best ? best : json_object_get(ep->record, "baseline");
}

/* ------------------------------------------------------------ Stage II */

static json_t *stage2_state(struct episode *ep)
{
        json_t *s = json_object_get(ep->record, "stage2");

        if (!s) {
                s = json_pack("{s:[], s:n, s:i}", "plan", "plan_for", "diagnoses", 0);
                json_object_set_new(ep->record, "stage2", s);
        }
        return s;
}

/* Diagnoses the best pair and plans what to try on it. */
static int replan(struct episode *ep, json_t *state, const char *best_identity)
{
        struct motif_file set[MAX_OP_FILES];
        size_t n = best_file_set(ep, set);
        struct stage2_plan_options o = {
                .store = ep->store,
                .signature = json_string_value(json_object_get(best_summary(ep), "bottleneck")),
                .operator_name = ep->manifest->name,
                .top_k = ep->options.top_k > 0 ? (size_t)ep->options.top_k : 5,
                .leave_one_out = ep->options.leave_one_out,
                .mode =
                    ep->options.strategy == EPISODE_STAGE2 || ep->options.strategy == EPISODE_FULL
                        ? STAGE2_GUIDED
                        : STAGE2_RANDOM,
                .rng = &ep->rng,
        };
        json_t *plan = NULL, *diagnosis = NULL;
        int r = stage2_plan(&o, set, n, &plan, &diagnosis);

        if (r < 0)
                return r;
        /* a motif whose every-site rewrite already failed here is tried site by site only */
        for (size_t i = json_array_size(plan); i-- > 0;) {
                const json_t *a = json_array_get(plan, i);
                const char *motif = json_string_value(json_object_get(a, "motif"));
                if (json_integer_value(json_object_get(a, "site")) < 0 &&
                    json_integer_value(json_object_get(
                        json_object_get(json_object_get(ep->record, "motifs"), motif), "failed")) >
                        0)
                        json_array_remove(plan, i);
        }
        json_object_set_new(diagnosis, "for", json_string(best_identity));
        json_object_set_new(state, "plan", plan);
        json_object_set_new(state, "plan_for", json_string(best_identity));
        json_object_set_new(state, "diagnosis", diagnosis);
        json_object_set_new(
            state, "diagnoses",
            json_integer(json_integer_value(json_object_get(state, "diagnoses")) + 1));
        return 0;
}

/*
 * Stage II's next candidate: the next planned action that changes
 * something, applied on the best pair.  -ENOSPC when the plan for the
 * current best is spent.
 */
static int propose_stage2(struct episode *ep)
{
        json_t *state = stage2_state(ep), *plan;
        const char *best_identity =
            json_string_value(json_object_get(best_summary(ep), "identity"));
        struct motif_file set[MAX_OP_FILES];
        size_t n = best_file_set(ep, set);
        int r;

        clear_candidate(ep);
        if (!best_identity)
                return -EINVAL;
        if (strcmp(json_string_value(json_object_get(state, "plan_for")) ?: "", best_identity) !=
            0) {
                r = replan(ep, state, best_identity);
                if (r < 0)
                        return r;
        }
        plan = json_object_get(state, "plan");
        while (json_array_size(plan) > 0) {
                json_t *action = json_incref(json_array_get(plan, 0));
                const char *motif = json_string_value(json_object_get(action, "motif"));
                struct motif_file *changed = NULL;
                size_t n_changed = 0;
                json_array_remove(plan, 0);
                r = stage2_apply(action, set, n, &changed, &n_changed);
                if (r < 0 || n_changed == 0) {
                        if (r < 0) {
                                bump_in(ep, "motifs", motif, "apply_errors");
                                log_msg(LOG_INFO, ep->options.log_context,
                                        "motif %s does not apply: %s", motif, strerror(-r));
                        }
                        motif_files_free(changed, n_changed);
                        json_decref(action);
                        continue;
                }
                for (size_t c = 0; c < n_changed; c++) {
                        struct op_file *f = file_named(ep, changed[c].path);
                        if (!f || !f->is_source)
                                continue;
                        f->cand = (char *)changed[c].text;
                        changed[c].text = NULL;
                }
                motif_files_free(changed, n_changed);
                ep->pending_action = action;
                ep->pending_stage = 2;
                memcpy(ep->pending, ep->best_values, ep->n_genes * sizeof(*ep->pending));
                build_overrides(ep);
                return 0;
        }
        return -ENOSPC;
}

static int propose_stage1(struct episode *ep)
{
        int r;

        if (ep->n_genes == 0)
                return -ENOSPC;
        r = search_propose(ep->search, ep->pending, &ep->pending_technique);
        if (r == -ENOSPC && counter(ep, "kernel_changes_unsearched") > 0) {
                /*
                 * Every genome was tried, but some on an older kernel: the
                 * landscape changed, so a new search starts from the best
                 * pair (what was learned of the old kernel, failures
                 * included, no longer holds).
                 */
                struct search *fresh = NULL;
                double best = 0;
                bump(ep, "search_resets");
                json_object_set_new(ep->record, "kernel_changes_unsearched", json_integer(0));
                ep->search_options.seed =
                    ep->options.seed + 7919 * (uint64_t)counter(ep, "search_resets");
                search_best(ep->search, &best);
                r = search_new(ep->genes, ep->n_genes, &ep->search_options, &fresh);
                if (r < 0)
                        return r;
                search_free(ep->search);
                ep->search = fresh;
                search_record(ep->search, ep->best_values, TECHNIQUE_COUNT, true, best, NULL);
                r = search_propose(ep->search, ep->pending, &ep->pending_technique);
        }
        if (r < 0)
                return r;
        ep->pending_stage = 1;
        return build_genome_candidate(ep, ep->pending);
}

/* ------------------------------------------------------------ the schedule */

static int steps_of(const struct episode *ep, int stage)
{
        int steps = stage == 1 ? ep->options.stage1_steps : ep->options.stage2_steps;

        return steps > 0 ? steps : DEFAULT_STEPS;
}

static json_t *schedule(struct episode *ep)
{
        json_t *s = json_object_get(ep->record, "schedule");

        if (!s) {
                s = json_pack("{s:i, s:i, s:i}", "stage", 1, "left", steps_of(ep, 1), "round", 0);
                json_object_set_new(ep->record, "schedule", s);
        }
        return s;
}

/* Hands the turn to the other stage (the alternation's switch). */
static void switch_stage(struct episode *ep)
{
        json_t *s = schedule(ep);
        int stage = (int)json_integer_value(json_object_get(s, "stage"));
        int next = stage == 1 ? 2 : 1;

        json_object_set_new(s, "stage", json_integer(next));
        json_object_set_new(s, "left", json_integer(steps_of(ep, next)));
        if (next == 1)
                json_object_set_new(
                    s, "round", json_integer(json_integer_value(json_object_get(s, "round")) + 1));
}

/* A counted evaluation of the alternation: one step of the stage's turn. */
static void schedule_step(struct episode *ep)
{
        json_t *s;
        json_int_t left;

        if (ep->options.strategy != EPISODE_FULL)
                return;
        s = schedule(ep);
        left = json_integer_value(json_object_get(s, "left")) - 1;
        json_object_set_new(s, "left", json_integer(left));
        if (left <= 0)
                switch_stage(ep);
}

/* Which stage proposes next. */
static int choose_stage(struct episode *ep)
{
        switch (ep->options.strategy) {
        case EPISODE_STAGE1:
        case EPISODE_BON:
                return 1;
        case EPISODE_STAGE2:
        case EPISODE_STAGE2_RANDOM:
                return 2;
        case EPISODE_FULL:
                return (int)json_integer_value(json_object_get(schedule(ep), "stage"));
        case EPISODE_EVOLVE:
                return stage2_random(&ep->rng) & 1 ? 2 : 1;
        }
        return 1;
}

/* ------------------------------------------------------------ steps */

static void on_evaluated(json_t *result, bool memo_hit, void *userdata);

static int evaluate(struct episode *ep, uint64_t seed, const json_t *reference, bool keep,
                    bool bypass_memo, bool with_overrides)
{
        struct npu_request req = {
                .manifest = ep->manifest,
                .overrides = with_overrides ? ep->overrides : NULL,
                .n_overrides = with_overrides ? ep->n_overrides : 0,
                .seed = seed,
                .reference = reference,
                .keep_outputs = keep,
                .bypass_memo = bypass_memo,
        };

        return npu_evaluate(ep->evaluator, &req, on_evaluated, ep, &ep->in_flight);
}

/* Seconds of the wall-clock budget left (counted from the first start); +inf without one. */
static double wall_seconds_left(const struct episode *ep)
{
        json_int_t started = json_integer_value(json_object_get(ep->record, "started"));

        if (ep->options.wall_budget_s <= 0)
                return INFINITY;
        return ep->options.wall_budget_s - difftime(time(NULL), (time_t)started);
}

/*
 * Ends an episode whose wall-clock budget ran out: whatever was in flight
 * is dropped, and the best so far stands, with the reason in the record.
 */
static void finish_out_of_time(struct episode *ep)
{
        char why[256];

        snprintf(why, sizeof(why),
                 "the wall-clock budget (episode.wall_budget_s = %.0f s) ran out after %d of %d "
                 "evaluations",
                 ep->options.wall_budget_s, counter(ep, "evaluations"), ep->options.budget);
        log_msg(LOG_NOTICE, ep->options.log_context, "%s", why);
        json_decref(ep->pending_result);
        ep->pending_result = NULL;
        clear_candidate(ep);
        json_object_set_new(ep->record, "stop_reason", json_string(why));
        /* a resumed episode re-measures its baseline but already has a best */
        if (ep->phase == PHASE_BASELINE && !json_object_get(ep->record, "best"))
                finish(ep, "failed", "wall_budget", why);
        else
                finish(ep, "done", NULL, NULL);
}

static void on_wall_budget(evutil_socket_t fd, short what, void *userdata)
{
        struct episode *ep = userdata;

        ep->out_of_time = true;
        if (ep->in_flight)
                npu_evaluation_cancel(ep->in_flight); /* on_evaluated finishes it */
        else if (ep->phase != PHASE_DONE)
                finish_out_of_time(ep);
}

/* Arms the wall-clock timer; without a loop the budget is checked between evaluations. */
static int arm_wall_budget(struct episode *ep)
{
        double left = wall_seconds_left(ep);
        struct timeval tv;

        if (!ep->options.base || isinf(left))
                return 0;
        ep->wall_timer = evtimer_new(ep->options.base, on_wall_budget, ep);
        if (!ep->wall_timer)
                return -ENOMEM;
        if (left < 0)
                left = 0;
        tv.tv_sec = (time_t)left;
        tv.tv_usec = (suseconds_t)((left - (double)tv.tv_sec) * 1e6);
        return evtimer_add(ep->wall_timer, &tv) < 0 ? -ENOMEM : 0;
}

static void next_candidate(struct episode *ep)
{
        bool exhausted[3] = { false, false, false };
        int r = 0;

        for (;;) {
                int stage;
                if (ep->out_of_time || wall_seconds_left(ep) <= 0) {
                        finish_out_of_time(ep);
                        return;
                }
                if (counter(ep, "evaluations") >= ep->options.budget) {
                        finish(ep, "done", NULL, NULL);
                        return;
                }
                stage = choose_stage(ep);
                if (exhausted[stage])
                        stage = stage == 1 ? 2 : 1;
                r = stage == 2 ? propose_stage2(ep) : propose_stage1(ep);
                if (r != -ENOSPC)
                        break;
                exhausted[stage] = true;
                log_msg(LOG_INFO, ep->options.log_context,
                        "%s has nothing left to try after %d evaluations",
                        stage == 1 ? "Stage I (the tiling space is exhausted)"
                                   : "Stage II (no motif applies to the best)",
                        counter(ep, "evaluations"));
                if (exhausted[1] && exhausted[2]) {
                        finish(ep, "done", NULL, NULL);
                        return;
                }
                if ((stage == 1 && !uses_stage2(ep)) || (stage == 2 && !uses_stage1(ep))) {
                        finish(ep, "done", NULL, NULL);
                        return;
                }
                if (ep->options.strategy == EPISODE_FULL)
                        switch_stage(ep);
        }
        if (r == 0) {
                ep->phase = PHASE_SEARCH;
                r = evaluate(ep, ep->options.seed, ep->baseline, false, false, true);
        }
        if (r < 0)
                finish(ep, "failed", "infra_error", strerror(-r));
}

static const char *failure_kind(const json_t *result)
{
        const char *kind =
            json_string_value(json_object_get(json_object_get(result, "error"), "kind"));
        return kind ? kind : json_string_value(json_object_get(result, "status"));
}

static const char *pending_what(const struct episode *ep)
{
        if (ep->pending_stage == 2)
                return json_string_value(json_object_get(ep->pending_action, "motif"));
        return search_technique_name(ep->pending_technique);
}

/*
 * A Stage II improvement becomes the best pair: the rewritten texts, the
 * genes found again in rewritten gene files, the genome recorded in the
 * search so that Stage I mutates on top of it, and the rewrite written
 * back to the bank.
 */
static void accept_stage2(struct episode *ep, double latency)
{
        const char *motif = json_string_value(json_object_get(ep->pending_action, "motif"));
        struct motif_file before[MAX_OP_FILES], changed[MAX_OP_FILES];
        size_t n_before = best_file_set(ep, before), n_changed = 0;
        double old_latency = 0;
        char id[SHA256_HEX_SIZE];
        struct stage2_learned learned = {
                .motif = motif,
                .operator_name = ep->manifest->name,
                .level = ep->manifest->level,
                .signature_before =
                    json_string_value(json_object_get(best_summary(ep), "bottleneck")),
                .context = npu_evaluator_context(ep->evaluator),
        };

        search_best(ep->search, &old_latency);
        learned.gain = latency > 0 ? old_latency / latency : 1.0;
        for (size_t i = 0; i < ep->n_files; i++) {
                if (!ep->files[i].cand)
                        continue;
                changed[n_changed].path = ep->files[i].path;
                changed[n_changed].text = ep->files[i].cand;
                n_changed++;
        }
        if (!ep->options.frozen_bank) {
                if (stage2_learn(ep->store, &learned, before, n_before, changed, n_changed, id) ==
                    0) {
                        json_t *list = json_object_get(ep->record, "learned");
                        if (!list) {
                                list = json_array();
                                json_object_set_new(ep->record, "learned", list);
                        }
                        json_array_append_new(list, json_string(id));
                } else {
                        log_msg(LOG_WARNING, ep->options.log_context,
                                "cannot write the %s improvement to the experience bank", motif);
                }
        }
        for (size_t i = 0; i < ep->n_files; i++) {
                struct op_file *f = &ep->files[i];
                if (!f->cand)
                        continue;
                if (f->gene_base) {
                        char *copy = strdup(f->cand);
                        if (copy) {
                                relocate_genes(ep, f->path, f->gene_base, copy);
                                free(f->gene_base);
                                f->gene_base = copy;
                        }
                }
                free(f->best);
                f->best = f->cand;
                f->cand = NULL;
        }
        /* Stage I goes on from the inherited genome, on the new kernel */
        bump(ep, "kernel_changes_unsearched");
        search_record(ep->search, ep->best_values, TECHNIQUE_COUNT, true, latency, NULL);
}

/* Records a finished candidate in the search, the trajectory and the store. */
static void record_candidate(struct episode *ep, const json_t *result, bool memo_hit,
                             bool confirmed_ok)
{
        const char *status = json_string_value(json_object_get(result, "status"));
        bool ok = status && strcmp(status, "ok") == 0 && confirmed_ok;
        double latency = json_number_value(json_object_get(result, "latency_us"));
        double best_before = 0;
        const char *what = pending_what(ep);
        const char *kind = ok ? NULL : (confirmed_ok ? failure_kind(result) : "wrong_answer");
        bool new_best;
        json_t *failures = json_object_get(ep->record, "failures"), *step;

        search_best(ep->search, &best_before);
        if (ep->pending_stage == 1) {
                new_best = search_record(
                    ep->search, ep->pending, ep->pending_technique, ok, latency,
                    ok ? NULL
                       : (confirmed_ok ? failure_kind(result) : "wrong_answer_on_second_seed"));
        } else {
                new_best = ok && latency < best_before;
        }
        if (!ok)
                json_object_set_new(
                    failures, kind,
                    json_integer(json_integer_value(json_object_get(failures, kind)) + 1));
        if (memo_hit) {
                bump(ep, "memo_hits");
        } else {
                bump(ep, "evaluations");
                schedule_step(ep);
        }
        bump_in(ep, "stages", ep->pending_stage == 1 ? "stage1" : "stage2",
                memo_hit ? "memo_hits" : "evaluations");
        if (new_best)
                bump_in(ep, "stages", ep->pending_stage == 1 ? "stage1" : "stage2", "wins");
        step = json_pack("{s:i, s:i, s:s, s:s, s:s, s:f, s:b, s:b}", "evaluation",
                         counter(ep, "evaluations"), "stage", ep->pending_stage, "technique", what,
                         "identity", json_string_value(json_object_get(result, "identity")),
                         "status", ok ? "ok" : kind, "latency_us", ok ? latency : 0.0, "memo_hit",
                         memo_hit, "new_best", new_best);
        if (ep->pending_stage == 2) {
                const char *entry = json_string_value(json_object_get(ep->pending_action, "entry"));
                json_object_set(step, "motif", json_object_get(ep->pending_action, "motif"));
                json_object_set(step, "entry", json_object_get(ep->pending_action, "entry"));
                json_object_set(step, "site", json_object_get(ep->pending_action, "site"));
                json_object_set(step, "source", json_object_get(ep->pending_action, "source"));
                bump_in(ep, "motifs", what, "tried");
                if (!ok)
                        bump_in(ep, "motifs", what, "failed");
                if (new_best)
                        bump_in(ep, "motifs", what, "won");
                if (entry && !ep->options.frozen_bank &&
                    experience_credit(ep->store, entry, new_best) < 0)
                        log_msg(LOG_WARNING, ep->options.log_context,
                                "cannot credit experience entry %.12s", entry);
                if (new_best)
                        accept_stage2(ep, latency);
        } else if (new_best) {
                /* the genome's gene files are the best pair's from now on */
                for (size_t i = 0; i < ep->n_files; i++) {
                        struct op_file *f = &ep->files[i];
                        if (!f->cand)
                                continue;
                        free(f->best);
                        f->best = f->cand;
                        f->cand = NULL;
                }
                memcpy(ep->best_values, ep->pending, ep->n_genes * sizeof(*ep->pending));
        }
        json_object_set_new(step, "genome", genome_json(ep, ep->pending));
        json_array_append_new(json_object_get(ep->record, "trajectory"), step);
        if (new_best) {
                json_t *best =
                    json_pack("{s:s, s:f, s:o, s:O, s:i, s:s}", "identity",
                              json_string_value(json_object_get(result, "identity")), "latency_us",
                              latency, "genome", genome_json(ep, ep->best_values), "files",
                              json_object_get(result, "files"), "stage", ep->pending_stage,
                              "technique", what);
                if (json_object_get(result, "bottleneck"))
                        json_object_set(best, "bottleneck", json_object_get(result, "bottleneck"));
                json_object_set_new(ep->record, "best", best);
        }
        if (persist(ep) < 0)
                log_msg(LOG_ERR, ep->options.log_context,
                        "cannot record evaluation %d; the episode goes on",
                        counter(ep, "evaluations"));
        report(ep, what, ep->pending_stage, result, new_best);
        clear_candidate(ep);
}

static void on_baseline(struct episode *ep, json_t *result)
{
        const char *status = json_string_value(json_object_get(result, "status"));
        double latency = json_number_value(json_object_get(result, "latency_us"));
        char message[2048];
        json_t *summary;

        if (!status || strcmp(status, "ok") != 0) {
                const json_t *error = json_object_get(result, "error");
                const char *kind = failure_kind(result) ?: "failed";
                /* only the simulator's rules can be relaxed; a compiler's error cannot */
                bool rule = strcmp(kind, "compile_error") != 0 && strcmp(kind, "timeout") != 0 &&
                            strcmp(kind, "infra_error") != 0;
                snprintf(message, sizeof(message), "the baseline itself fails: %s: %s%s", kind,
                         json_string_value(json_object_get(error, "message"))
                             ? json_string_value(json_object_get(error, "message"))
                             : "no message",
                         rule ? " (use --permissive RULE for code that relies on hardware "
                                "leniency)"
                              : "");
                json_decref(result);
                finish(ep, "failed", "baseline", message);
                return;
        }
        if (latency <= 0) {
                json_decref(result);
                finish(ep, "failed", "infra_error",
                       "the backend reported no latency for the baseline, so there is nothing "
                       "to optimize against");
                return;
        }
        ep->baseline = result;
        summary = json_pack("{s:s, s:f, s:O, s:O}", "identity",
                            json_string_value(json_object_get(result, "identity")), "latency_us",
                            latency, "roofline_us",
                            json_object_get(result, "roofline_us")
                                ? json_object_get(result, "roofline_us")
                                : json_null(),
                            "files", json_object_get(result, "files"));
        if (json_object_get(result, "bottleneck"))
                json_object_set(summary, "bottleneck", json_object_get(result, "bottleneck"));
        json_object_set_new(ep->record, "baseline", summary);
        /* a resumed search already holds the baseline */
        if (!search_best(ep->search, NULL))
                search_record(ep->search, ep->best_values, TECHNIQUE_COUNT, true, latency, NULL);
        if (persist(ep) < 0)
                log_msg(LOG_ERR, ep->options.log_context, "cannot record the baseline");
        report(ep, "baseline", 0, result, false);
        next_candidate(ep);
}

static void on_evaluated(json_t *result, bool memo_hit, void *userdata)
{
        struct episode *ep = userdata;
        const char *status = json_string_value(json_object_get(result, "status"));
        double best = 0;

        ep->in_flight = NULL;
        if (ep->stopping) {
                json_t *record = json_incref(ep->record);
                json_decref(result);
                json_object_set_new(record, "state", json_string("stopped"));
                ep->phase = PHASE_DONE;
                ep->done(record, ep->userdata);
                episode_free(ep);
                return;
        }
        if (ep->cancelled && ep->phase != PHASE_DONE) {
                json_decref(result);
                finish(ep, "cancelled", "cancelled", "cancelled by request");
                return;
        }
        if (ep->out_of_time && ep->phase != PHASE_DONE) {
                json_decref(result);
                finish_out_of_time(ep);
                return;
        }
        /* the daemon health-probes a device whose run timed out */
        if (!memo_hit && status && strcmp(status, "timeout") == 0)
                bump(ep, "run_timeouts");
        switch (ep->phase) {
        case PHASE_BASELINE:
                on_baseline(ep, result);
                return;
        case PHASE_SEARCH:
                search_best(ep->search, &best);
                /* a new best made here must hold on a second seed before it counts */
                if (!memo_hit && status && strcmp(status, "ok") == 0 &&
                    json_number_value(json_object_get(result, "latency_us")) < best) {
                        ep->pending_result = result;
                        if (!ep->confirm_baseline) {
                                ep->phase = PHASE_CONFIRM_BASELINE;
                                if (evaluate(ep, ep->options.seed + CONFIRM_SEED_OFFSET, NULL, true,
                                             true, false) < 0)
                                        finish(ep, "failed", "infra_error",
                                               "cannot start the confirmation baseline");
                                return;
                        }
                        ep->phase = PHASE_CONFIRM;
                        if (evaluate(ep, ep->options.seed + CONFIRM_SEED_OFFSET,
                                     ep->confirm_baseline, false, true, true) < 0)
                                finish(ep, "failed", "infra_error", "cannot start a confirmation");
                        return;
                }
                if (status && strcmp(status, "infra_error") == 0) {
                        /* says nothing about the candidate and costs no budget */
                        log_msg(LOG_WARNING, ep->options.log_context,
                                "infrastructure error, candidate skipped: %s",
                                json_string_value(
                                    json_object_get(json_object_get(result, "error"), "message")));
                        json_decref(result);
                        clear_candidate(ep);
                        next_candidate(ep);
                        return;
                }
                record_candidate(ep, result, memo_hit, true);
                json_decref(result);
                next_candidate(ep);
                return;
        case PHASE_CONFIRM_BASELINE:
                if (!status || strcmp(status, "ok") != 0) {
                        json_decref(result);
                        finish(ep, "failed", "baseline",
                               "the baseline fails on the confirmation seed");
                        return;
                }
                ep->confirm_baseline = result;
                ep->phase = PHASE_CONFIRM;
                if (evaluate(ep, ep->options.seed + CONFIRM_SEED_OFFSET, ep->confirm_baseline,
                             false, true, true) < 0)
                        finish(ep, "failed", "infra_error", "cannot start a confirmation");
                return;
        case PHASE_CONFIRM: {
                json_t *first = ep->pending_result;
                bool confirmed = status && strcmp(status, "ok") == 0;
                ep->pending_result = NULL;
                bump(ep, "confirmations");
                record_candidate(ep, first, false, confirmed);
                json_decref(first);
                json_decref(result);
                next_candidate(ep);
                return;
        }
        case PHASE_DONE:
                json_decref(result);
                return;
        }
}

void episode_cancel(struct episode *ep)
{
        if (ep)
                ep->cancelled = true;
}

void episode_stop(struct episode *ep)
{
        if (!ep)
                return;
        ep->stopping = true;
        npu_evaluation_cancel(ep->in_flight);
}

static json_t *genes_json(const struct episode *ep)
{
        json_t *genes = json_array();

        for (size_t g = 0; g < ep->n_genes; g++)
                json_array_append_new(
                    genes,
                    json_pack("{s:s, s:i, s:s, s:I, s:I, s:I, s:b}", "file", ep->genes[g].file,
                              "line", ep->genes[g].line, "name", ep->genes[g].name, "value",
                              (json_int_t)ep->genes[g].value, "lo", (json_int_t)ep->genes[g].lo,
                              "hi", (json_int_t)ep->genes[g].hi, "marked", ep->genes[g].marked));
        return genes;
}

/* Takes a running record of this id back, with its search, best pair and plan. */
static bool resume(struct episode *ep, json_t *old)
{
        const char *rng = json_string_value(json_object_get(old, "rng"));

        if (strcmp(json_string_value(json_object_get(old, "state")) ?: "", "running") != 0 ||
            strcmp(json_string_value(json_object_get(old, "strategy")) ?: "",
                   episode_strategy_name(ep->options.strategy)) != 0 ||
            search_from_json(ep->search, json_object_get(old, "search")) < 0)
                return false;
        if (restore_pair(ep, json_object_get(old, "pair")) < 0) {
                log_msg(LOG_WARNING, ep->options.log_context,
                        "the best texts of the stopped episode are gone; starting over");
                return false;
        }
        if (!json_object_get(old, "pair") && search_best(ep->search, NULL))
                memcpy(ep->best_values, search_best(ep->search, NULL),
                       ep->n_genes * sizeof(*ep->best_values));
        if (rng)
                ep->rng = strtoull(rng, NULL, 16);
        return true;
}

int episode_start(struct npu_evaluator *evaluator, struct store *store, const char *opdir,
                  const struct episode_options *options, episode_progress_fn progress,
                  episode_done_fn done, void *userdata, struct episode **ret_episode, char *err,
                  size_t err_size)
{
        struct search_options search_options = { 0 };
        struct episode *ep;
        json_t *old = NULL;
        int r;

        if (!evaluator || !store || !opdir || !options || !options->id || !done)
                return -EINVAL;
        if ((size_t)options->strategy >= ARRAY_SIZE(strategy_names))
                return -EINVAL;
        ep = calloc(1, sizeof(*ep));
        if (!ep)
                return -ENOMEM;
        ep->evaluator = evaluator;
        ep->store = store;
        ep->options = *options;
        if (ep->options.budget <= 0)
                ep->options.budget = 40;
        if (ep->options.strategy == EPISODE_FULL && ep->options.rounds > 0 &&
            ep->options.budget > ep->options.rounds * (steps_of(ep, 1) + steps_of(ep, 2)))
                ep->options.budget = ep->options.rounds * (steps_of(ep, 1) + steps_of(ep, 2));
        ep->progress = progress;
        ep->done = done;
        ep->userdata = userdata;
        ep->rng = options->seed ^ 0x5eed5eed5eed5eedull;
        ep->id = strdup(options->id);
        /* the caller's string may live on its stack: every later log line needs it */
        ep->log_context = options->log_context ? strdup(options->log_context) : NULL;
        ep->options.log_context = ep->log_context;
        if (!ep->id || (options->log_context && !ep->log_context)) {
                r = -ENOMEM;
                goto fail;
        }
        r = npu_manifest_load(opdir, &ep->manifest, err, err_size);
        if (r < 0)
                goto fail;
        r = genes_find(ep->manifest->dir, &ep->genes, &ep->n_genes, err, err_size);
        if (r < 0)
                goto fail;
        if (ep->n_genes == 0 && !uses_stage2(ep)) {
                snprintf(err, err_size,
                         "%s: no tunable literal found in op_host/; mark knobs with a comment "
                         "// @tune lo..hi on their line",
                         ep->manifest->dir);
                r = -ENOENT;
                goto fail;
        }
        if (ep->n_genes > GENES_MAX) {
                snprintf(err, err_size, "%s: more than %d genes", ep->manifest->dir, GENES_MAX);
                r = -E2BIG;
                goto fail;
        }
        ep->located = calloc(ep->n_genes + 1, sizeof(*ep->located));
        ep->apply_genes = calloc(ep->n_genes + 1, sizeof(*ep->apply_genes));
        ep->apply_values = calloc(ep->n_genes + 1, sizeof(*ep->apply_values));
        ep->lost = calloc(ep->n_genes + 1, sizeof(*ep->lost));
        if (!ep->located || !ep->apply_genes || !ep->apply_values || !ep->lost) {
                r = -ENOMEM;
                goto fail;
        }
        if (ep->n_genes)
                memcpy(ep->located, ep->genes, ep->n_genes * sizeof(*ep->genes));
        for (size_t g = 0; g < ep->n_genes; g++)
                ep->best_values[g] = ep->genes[g].value;
        r = load_files(ep);
        if (r < 0) {
                snprintf(err, err_size, "%s: cannot read the operator's sources: %s",
                         ep->manifest->dir, strerror(-r));
                goto fail;
        }
        search_options.seed = options->seed;
        search_options.random_only = options->strategy == EPISODE_BON;
        ep->search_options = search_options;
        r = search_new(ep->genes, ep->n_genes, &search_options, &ep->search);
        if (r < 0)
                goto fail;

        if (episode_load(store, ep->id, &old) == 0 && resume(ep, old)) {
                ep->record = old;
                json_object_set_new(ep->record, "genes", genes_json(ep));
                json_object_set_new(
                    ep->record, "resumed",
                    json_integer(json_integer_value(json_object_get(old, "resumed")) + 1));
                log_msg(LOG_NOTICE, options->log_context, "resuming after %d evaluations",
                        counter(ep, "evaluations"));
        } else {
                json_decref(old);
                /* a fresh search: resume() may have half-restored the old one */
                search_free(ep->search);
                ep->search = NULL;
                r = search_new(ep->genes, ep->n_genes, &search_options, &ep->search);
                if (r < 0)
                        goto fail;
                for (size_t i = 0; i < ep->n_files; i++) {
                        struct op_file *f = &ep->files[i];
                        char *best = strdup(f->disk), *base = f->gene_base ? strdup(f->disk) : NULL;
                        if (!best || (f->gene_base && !base)) {
                                free(best);
                                r = -ENOMEM;
                                goto fail;
                        }
                        free(f->best);
                        f->best = best;
                        free(f->gene_base);
                        f->gene_base = base;
                }
                if (ep->n_genes)
                        memcpy(ep->located, ep->genes, ep->n_genes * sizeof(*ep->genes));
                for (size_t g = 0; g < ep->n_genes; g++) {
                        ep->best_values[g] = ep->genes[g].value;
                        ep->lost[g] = false;
                }
                ep->rng = options->seed ^ 0x5eed5eed5eed5eedull;
                ep->record = json_pack(
                    "{s:s, s:s, s:s, s:s, s:I, s:i, s:s, s:o, s:i, s:i, s:i, s:o, s:o, s:I}", "id",
                    ep->id, "operator", ep->manifest->name, "dir", ep->manifest->dir, "strategy",
                    episode_strategy_name(options->strategy), "seed", (json_int_t)options->seed,
                    "budget", ep->options.budget, "state", "running", "genes", genes_json(ep),
                    "evaluations", 0, "memo_hits", 0, "confirmations", 0, "failures", json_object(),
                    "trajectory", json_array(), "started", (json_int_t)time(NULL));
                if (ep->record && ep->options.strategy == EPISODE_FULL)
                        json_object_set_new(ep->record, "alternation",
                                            json_pack("{s:i, s:i, s:i}", "rounds",
                                                      ep->options.rounds, "stage1_steps",
                                                      steps_of(ep, 1), "stage2_steps",
                                                      steps_of(ep, 2)));
        }
        if (!ep->record) {
                r = -ENOMEM;
                goto fail;
        }
        json_object_set_new(ep->record, "context", json_string(npu_evaluator_context(evaluator)));
        ep->phase = PHASE_BASELINE;
        r = arm_wall_budget(ep);
        if (r < 0) {
                snprintf(err, err_size, "cannot arm the wall-clock budget: %s", strerror(-r));
                goto fail;
        }
        r = evaluate(ep, options->seed, NULL, true, true, false);
        if (r < 0) {
                snprintf(err, err_size, "cannot start the baseline: %s", strerror(-r));
                goto fail;
        }
        if (ret_episode)
                *ret_episode = ep;
        return 0;
fail:
        episode_free(ep);
        return r;
}
