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
#include "prompts-internal.h"
#include "stage2-internal.h"

#include "common/common.h"
#include "llm/llm.h"
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

#define CONFIRM_SEED_OFFSET    1000003
#define MAX_OP_FILES           32
#define MAX_FILE_BYTES         (4u << 20)
#define DEFAULT_STEPS          10
#define LLM_CALLS_RECORDED     200 /* call records kept per episode; counters go on */
#define LLM_MAX_FAILURES       2   /* calls in a row that got no answer before the LLM is left */
#define LLM_RECENT_ROWS        12  /* trajectory rows shown to the Stage I prompt */
#define LLM_TILING_DATA_MAX    (16u << 10)
#define EMBED_ENTRIES_PER_CALL 256 /* bank entries embedded per call */
#define MAX_OVERFLOW_REPAIRS   2   /* a motif that overflowed the UB retried on tiles /2, /4 */

enum phase {
        PHASE_BASELINE,
        PHASE_CONFIRM_BASELINE, /* the reference outputs for the confirmation seed */
        PHASE_SEARCH,
        PHASE_CONFIRM,
        PHASE_LLM,       /* waiting for the LLM's answer */
        PHASE_LLM_BUILD, /* building the answer: does it compile? */
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
        struct npu_job *in_flight;
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

        /* the optional LLM: llm.client NULL means rules only */
        struct episode_llm llm;
        char *llm_prompts_dir, *llm_model, *llm_embedding_model;
        struct llm_budget *llm_budget;
        struct llm_call *llm_call; /* in flight */
        bool llm_skip_once;        /* the last LLM step failed: rules propose this one */
        double exhausted_said[3];  /* the best's latency when a stage last logged it is spent */
        bool pending_llm;          /* the candidate in flight is an LLM's answer */
        /*
         * the candidate in flight rewrites the best pair's texts (an LLM's
         * answer or a structural tiling move): when it wins it is adopted
         * as a rewrite, with the genes found again in it
         */
        bool pending_rewrite;
        char pending_move[160]; /* the structural move(s) of the candidate in flight */
        int llm_failures;       /* calls in a row that got no answer */
        char *llm_note;         /* the answer's own words about its change */
        json_t *llm_entries;    /* experience entry ids the refiner was given */
        json_t *dense;          /* dense retrieval for dense_for (a best's identity) */
        char *dense_for;
        json_t *embed_ids; /* the entries being embedded */
        bool embed_query;  /* the call in flight embeds the query */
        /* a finished episode run again: stop after as many candidates as it had,
         * so that the deterministic replay is all memo hits; 0: not a replay */
        size_t replay_rows;
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
        ep->pending_llm = false;
        ep->pending_rewrite = false;
        ep->pending_move[0] = '\0';
        free(ep->llm_note);
        ep->llm_note = NULL;
        json_decref(ep->llm_entries);
        ep->llm_entries = NULL;
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
        llm_budget_free(ep->llm_budget);
        json_decref(ep->dense);
        json_decref(ep->embed_ids);
        free(ep->dense_for);
        free(ep->llm_embedding_model);
        free(ep->llm_prompts_dir);
        free(ep->llm_model);
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
                log_msg(LOG_ERR, ep->options.log_context,
                        "cannot record the episode's end (it resumes at the next start): %s",
                        store_last_error(ep->store));
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

        if (ep->n_files == MAX_OP_FILES) {
                log_error("%s: more than %d files in op_host/ and op_kernel/, the most an "
                          "episode edits",
                          ep->manifest->dir, MAX_OP_FILES - 1);
                return -E2BIG;
        }
        if (format_path(path, sizeof(path), "%s/%s", ep->manifest->dir, rel) < 0)
                return -ENAMETOOLONG;
        f = &ep->files[ep->n_files];
        memset(f, 0, sizeof(*f));
        r = read_text(path, &f->disk);
        if (r == -EFBIG)
                log_error("%s: larger than the %u KiB an operator's source file may have (each "
                          "is copied into every candidate); keep data out of op_host/ and "
                          "op_kernel/",
                          path, (unsigned)(MAX_FILE_BYTES >> 10));
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
 * genome takes the values found.  Returns how many genes were lost.
 */
static size_t relocate_genes(struct episode *ep, const char *path, const char *old_text,
                             const char *new_text)
{
        struct gene *found = NULL;
        size_t n_found = 0, lost = 0;
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
                        lost++;
                }
        }
        free(found);
        return lost;
}

/* ------------------------------------------------------------ structural tiling moves */

/*
 * Stage I and Best-of-N search one space: the genes of the tiling program
 * and, for every structural tiling move that applies to the operator as it
 * is on disk, a move gene (no file; named "move:" and the move) whose value
 * says at which of its sites the move is made, 0 for none.  A genome's
 * candidate is its gene values written into the gene files, then its moves
 * made in table order (a move can open the next one's site).  A move that
 * takes a gene's literal away makes that gene's value irrelevant; the memo
 * answers the duplicates.  So a move is searched together with the genes
 * it leaves, instead of being judged at a genome tuned without it.
 */
#define MOVE_GENE_PREFIX "move:"

static bool is_move_gene(const struct gene *g)
{
        return g->file[0] == '\0' &&
               strncmp(g->name, MOVE_GENE_PREFIX, strlen(MOVE_GENE_PREFIX)) == 0;
}

/* The texts moves are detected on and applied to: the candidate's, else the best's. */
static size_t candidate_file_set(struct episode *ep, struct motif_file *set)
{
        for (size_t i = 0; i < ep->n_files; i++) {
                set[i].path = ep->files[i].path;
                set[i].text = ep->files[i].cand ? ep->files[i].cand : ep->files[i].best;
        }
        return ep->n_files;
}

/*
 * Appends a move gene for every move with a site in the files on disk, and
 * gives every file a move changes a gene_base, so that each candidate
 * rebuilds it from there.
 */
static int add_move_genes(struct episode *ep)
{
        struct motif_file set[MAX_OP_FILES];
        size_t n = ep->n_files;

        for (size_t i = 0; i < n; i++) {
                set[i].path = ep->files[i].path;
                set[i].text = ep->files[i].disk;
        }
        for (size_t m = 0; m < tiling_move_count(); m++) {
                const struct tiling_move *move = tiling_move_at(m);
                struct motif_site *sites = NULL;
                struct motif_file *changed = NULL;
                size_t n_sites = 0, n_changed = 0;
                struct gene *grown, *g;
                int r = tiling_move_detect(move, set, n, &sites, &n_sites);
                free(sites);
                if (r < 0 || n_sites == 0)
                        continue;
                for (size_t k = 0; k < n_sites; k++) {
                        if (tiling_move_apply(move, set, n, k, &changed, &n_changed) < 0)
                                continue;
                        for (size_t c = 0; c < n_changed; c++) {
                                struct op_file *f = file_named(ep, changed[c].path);
                                if (f && !f->gene_base && !(f->gene_base = strdup(f->disk))) {
                                        motif_files_free(changed, n_changed);
                                        return -ENOMEM;
                                }
                        }
                        motif_files_free(changed, n_changed);
                        changed = NULL;
                }
                grown = realloc(ep->genes, (ep->n_genes + 1) * sizeof(*grown));
                if (!grown)
                        return -ENOMEM;
                ep->genes = grown;
                g = &ep->genes[ep->n_genes++];
                memset(g, 0, sizeof(*g));
                snprintf(g->name, sizeof(g->name), "%s%s", MOVE_GENE_PREFIX, move->name);
                g->lo = 0;
                g->hi = (int64_t)n_sites;
                g->scale = GENE_CHOICE;
        }
        return 0;
}

/* Takes the changed texts as the candidate's (ownership passes; the array is freed). */
static int take_changed(struct episode *ep, struct motif_file *changed, size_t n_changed)
{
        int r = 0;

        for (size_t k = 0; k < n_changed; k++) {
                struct op_file *f = file_named(ep, changed[k].path);
                if (!f || !f->is_source) {
                        r = -EINVAL;
                        continue;
                }
                free(f->cand);
                f->cand = (char *)changed[k].text;
                changed[k].text = NULL;
        }
        motif_files_free(changed, n_changed);
        return r;
}

/*
 * Makes the moves of genome values on the candidate texts, in table order;
 * a move whose site is gone (an earlier move or a rewrite took it) is left
 * out.  Names the moves made in pending_move.
 */
static int apply_move_genes(struct episode *ep, const int64_t *values)
{
        struct motif_file set[MAX_OP_FILES];

        ep->pending_move[0] = '\0';
        for (size_t g = 0; g < ep->n_genes; g++) {
                const struct tiling_move *move;
                struct motif_site *sites = NULL;
                struct motif_file *changed = NULL;
                size_t n_sites = 0, n_changed = 0, n = candidate_file_set(ep, set);
                int r;
                if (!is_move_gene(&ep->genes[g]) || values[g] <= 0)
                        continue;
                move = tiling_move_find(ep->genes[g].name + strlen(MOVE_GENE_PREFIX));
                r = move ? tiling_move_detect(move, set, n, &sites, &n_sites) : -ENOENT;
                free(sites);
                if (r < 0 || (size_t)values[g] > n_sites)
                        continue;
                /* a move that cannot be made on these texts is left out, as a gone site is */
                r = tiling_move_apply(move, set, n, (size_t)values[g] - 1, &changed, &n_changed);
                if (r == -ENOMEM)
                        return r;
                if (r < 0)
                        continue;
                r = take_changed(ep, changed, n_changed);
                if (r < 0)
                        return r;
                snprintf(ep->pending_move + strlen(ep->pending_move),
                         sizeof(ep->pending_move) - strlen(ep->pending_move), "%s%s",
                         ep->pending_move[0] ? "+" : "", move->name);
        }
        return 0;
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

/*
 * The genome written into the gene files, its moves made on the candidate
 * texts (a kernel already in the candidate counts its live buffers).
 */
static int write_genome(struct episode *ep, const int64_t *values)
{
        size_t n = 0;
        int r;

        for (size_t g = 0; g < ep->n_genes; g++) {
                if (ep->lost[g] || is_move_gene(&ep->genes[g]))
                        continue;
                ep->apply_genes[n] = ep->located[g];
                ep->apply_values[n] = values[g];
                n++;
        }
        for (size_t i = 0; i < ep->n_files; i++) {
                struct op_file *f = &ep->files[i];
                if (!f->gene_base)
                        continue;
                r = genes_apply(f->path, f->gene_base, strlen(f->gene_base), ep->apply_genes,
                                ep->apply_values, n, &f->cand);
                if (r < 0)
                        return r;
        }
        r = apply_move_genes(ep, values);
        if (r < 0)
                return r;
        build_overrides(ep);
        return 0;
}

/* Stage I's candidate: the genome written into the gene files of the best pair, its moves made. */
static int build_genome_candidate(struct episode *ep, const int64_t *values)
{
        clear_candidate(ep);
        return write_genome(ep, values);
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
                if (is_move_gene(&ep->genes[g]))
                        snprintf(key, sizeof(key), "%s", ep->genes[g].name);
                else
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

/* The dense retrieval made for the current best, or NULL (BM25 then). */
static const json_t *dense_for_best(struct episode *ep)
{
        const char *identity = json_string_value(json_object_get(best_summary(ep), "identity"));

        return ep->dense && ep->dense_for && identity && strcmp(ep->dense_for, identity) == 0
                   ? ep->dense
                   : NULL;
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
                .retrieved = dense_for_best(ep),
        };
        json_t *plan = NULL, *diagnosis = NULL;
        int r = stage2_plan(&o, set, n, &plan, &diagnosis);

        if (r < 0)
                return r;
        /*
         * A motif whose every-site rewrite already failed here is tried site
         * by site only; unless each failure was a UB overflow and Stage I
         * can change the tiling: on another best it may fit (double
         * buffering, dropped for good after one overflow on a UB-filling
         * tile, was apply_adam's largest gain).
         */
        for (size_t i = json_array_size(plan); i-- > 0;) {
                const json_t *a = json_array_get(plan, i);
                const json_t *stats =
                    json_object_get(json_object_get(ep->record, "motifs"),
                                    json_string_value(json_object_get(a, "motif")));
                json_int_t failed = json_integer_value(json_object_get(stats, "failed"));
                json_int_t overflowed = json_integer_value(json_object_get(stats, "overflowed"));
                if (json_integer_value(json_object_get(a, "site")) < 0 && failed > 0 &&
                    !(uses_stage1(ep) && overflowed == failed))
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
 * A motif that overflowed the UB (double buffering on a tile that filled
 * it) retried with the tiling fitted to the new kernel in the same
 * candidate: the tiling moves made again on it (tile_from_ub counts its
 * live buffers), and every gene whose growth overflowed in Stage I
 * (search_overflow_direction) moved 2^shrink times back.  The motif must
 * leave the gene files alone (the tiling is the genome's).  -ERANGE when
 * nothing in the tiling can change, -EXDEV when the motif changes a gene
 * file.
 */
static int propose_overflow_repair(struct episode *ep, const json_t *action, int shrink)
{
        struct motif_file set[MAX_OP_FILES], *changed = NULL;
        size_t n_changed = 0, n = best_file_set(ep, set);
        bool moved = false, moves_made = false;
        int r;

        memcpy(ep->pending, ep->best_values, ep->n_genes * sizeof(*ep->pending));
        for (size_t g = 0; g < ep->n_genes; g++) {
                int direction = ep->lost[g] ? 0 : search_overflow_direction(ep->search, g);
                int64_t v = ep->best_values[g];
                moves_made |= is_move_gene(&ep->genes[g]) && v > 0;
                if (direction == 0 || v <= 0 || v > (INT64_MAX >> shrink))
                        continue;
                v = gene_snap(&ep->genes[g], direction > 0 ? v >> shrink : v << shrink);
                moved |= v != ep->best_values[g];
                ep->pending[g] = v;
        }
        /* made again, the moves give the same tiling at every shrink: once is enough */
        if (!moved && !(moves_made && shrink == 1))
                return -ERANGE;
        r = stage2_apply(action, set, n, &changed, &n_changed);
        if (r == 0 && n_changed == 0)
                r = -ENOENT;
        for (size_t c = 0; c < n_changed && r == 0; c++) {
                struct op_file *f = file_named(ep, changed[c].path);
                if (f && f->gene_base)
                        r = -EXDEV;
        }
        for (size_t c = 0; c < n_changed && r == 0; c++) {
                struct op_file *f = file_named(ep, changed[c].path);
                if (!f || !f->is_source)
                        continue;
                f->cand = (char *)changed[c].text;
                changed[c].text = NULL;
        }
        if (r == 0)
                r = write_genome(ep, ep->pending);
        motif_files_free(changed, n_changed);
        if (r < 0)
                clear_candidate(ep);
        return r;
}

/* After a motif overflowed the UB: the same action, next at the front of the plan, shrunk. */
static void plan_overflow_repair(struct episode *ep)
{
        const char *motif = json_string_value(json_object_get(ep->pending_action, "motif"));
        json_int_t shrink = json_integer_value(json_object_get(ep->pending_action, "shrink")) + 1;
        json_t *repair;

        if (shrink > MAX_OVERFLOW_REPAIRS || !uses_stage1(ep) || ep->n_genes == 0 || !motif ||
            !motif_find(motif))
                return;
        repair = json_deep_copy(ep->pending_action);
        if (!repair)
                return;
        json_object_set_new(repair, "shrink", json_integer(shrink));
        json_array_insert_new(json_object_get(stage2_state(ep), "plan"), 0, repair);
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
                if (json_integer_value(json_object_get(action, "shrink")) > 0) {
                        r = propose_overflow_repair(
                            ep, action, (int)json_integer_value(json_object_get(action, "shrink")));
                        if (r == 0) {
                                ep->pending_action = action;
                                ep->pending_stage = 2;
                                return 0;
                        }
                        log_msg(LOG_INFO, ep->options.log_context,
                                "motif %s overflowed the UB and is not repaired: %s", motif,
                                r == -ERANGE   ? "no tiling gene or move is known to shrink it"
                                : r == -EXDEV  ? "the motif rewrites the tiling files itself"
                                : r == -ENOENT ? "the motif no longer applies"
                                               : strerror(-r));
                        json_decref(action);
                        continue;
                }
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
        search_set_frozen(ep->search, ep->lost);
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
                search_set_frozen(ep->search, ep->lost);
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

/* Where a search candidate is stopped as slow: k times the best, with a floor; 0: never. */
static double slow_limit(struct episode *ep)
{
        double best = 0;
        double k = ep->options.slow_factor ? ep->options.slow_factor : EPISODE_SLOW_FACTOR;

        if (k < 0 || !search_best(ep->search, &best) || best <= 0)
                return 0;
        return best * k > best + EPISODE_SLOW_FLOOR_US ? best * k : best + EPISODE_SLOW_FLOOR_US;
}

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
                .device = ep->options.device,
                .slow_after_us = ep->phase == PHASE_SEARCH ? slow_limit(ep) : 0,
        };

        return npu_evaluate(ep->evaluator, &req, on_evaluated, ep, &ep->in_flight);
}

static bool llm_wanted(struct episode *ep, int stage);
static int llm_propose(struct episode *ep, int stage);
static bool embed_wanted(struct episode *ep);
static int embed_start(struct episode *ep, bool query);
static void on_llm_built(struct episode *ep, json_t *result);
static void deliver_stopped(struct episode *ep);
static void llm_recorded(struct episode *ep, json_t *step, bool ok, bool new_best);

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
                npu_job_cancel(ep->in_flight); /* on_evaluated finishes it */
        else if (ep->llm_call)
                llm_call_cancel(ep->llm_call); /* its callback finishes it */
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
                if (counter(ep, "evaluations") >= ep->options.budget ||
                    (ep->replay_rows && json_array_size(json_object_get(
                                            ep->record, "trajectory")) >= ep->replay_rows)) {
                        finish(ep, "done", NULL, NULL);
                        return;
                }
                stage = choose_stage(ep);
                if (exhausted[stage])
                        stage = stage == 1 ? 2 : 1;
                if (stage == 2 && !exhausted[2] && embed_wanted(ep) && embed_start(ep, false) == 0)
                        return;
                if (!exhausted[stage] && llm_wanted(ep, stage) && llm_propose(ep, stage) == 0)
                        return;
                ep->llm_skip_once = false;
                r = stage == 2 ? propose_stage2(ep) : propose_stage1(ep);
                if (r != -ENOSPC)
                        break;
                exhausted[stage] = true;
                /* said once per best, not again each time the turn comes back to it */
                double best_us = 0;
                search_best(ep->search, &best_us);
                if (ep->exhausted_said[stage] != best_us) {
                        ep->exhausted_said[stage] = best_us;
                        log_msg(LOG_INFO, ep->options.log_context,
                                "%s has nothing left to try after %d evaluations",
                                stage == 1 ? "Stage I (the tiling space is exhausted)"
                                           : "Stage II (no motif applies to the best)",
                                counter(ep, "evaluations"));
                }
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
        if (ep->pending_stage == 1 && ep->pending_llm)
                return "llm_tiling";
        if (ep->pending_stage == 2)
                return json_string_value(json_object_get(ep->pending_action, "motif"));
        return search_technique_name(ep->pending_technique);
}

/* Whether the candidate in flight changes only files that hold genes (a tiling rewrite). */
static bool candidate_is_tiling_only(const struct episode *ep)
{
        for (size_t i = 0; i < ep->n_files; i++)
                if (ep->files[i].cand && !ep->files[i].gene_base)
                        return false;
        return true;
}

/*
 * A rewrite (Stage II's, an LLM's or a structural tiling move's) becomes the
 * best pair: the rewritten texts, the genes found again in rewritten gene
 * files, and the genome recorded in the search so that Stage I mutates on
 * top of it.
 *
 * A tiling rewrite that takes some genes away (a move that puts the core
 * count where CORE_NUM was) leaves Stage I the survivors, searched in the
 * new text: the tile is then tuned for the move's core count.  A tiling
 * rewrite that takes every gene is the best, but it is not the end of
 * Stage I: the genes stay where they were, so the search goes on over the
 * texts they came from and a genome can still beat the rewrite.  Without
 * this an early move that wins against a poor first population ends the
 * search.
 */
static void adopt_rewrite(struct episode *ep, double latency)
{
        size_t bytes = ep->n_genes * sizeof(*ep->located), lost = 0, live = 0;
        struct gene *located_before = bytes ? malloc(bytes) : NULL;
        bool *lost_before = ep->n_genes ? malloc(ep->n_genes * sizeof(*lost_before)) : NULL;
        int64_t *values_before = ep->n_genes ? malloc(ep->n_genes * sizeof(*values_before)) : NULL;
        bool can_keep =
            candidate_is_tiling_only(ep) && located_before && lost_before && values_before;
        char *relocated[MAX_OP_FILES] = { NULL };

        for (size_t g = 0; g < ep->n_genes; g++)
                live += !ep->lost[g] && !is_move_gene(&ep->genes[g]);
        if (can_keep) {
                memcpy(located_before, ep->located, bytes);
                memcpy(lost_before, ep->lost, ep->n_genes * sizeof(*lost_before));
                memcpy(values_before, ep->best_values, ep->n_genes * sizeof(*values_before));
        }
        /* first every gene file's genes found again, so that the choice holds for all */
        for (size_t i = 0; i < ep->n_files; i++) {
                struct op_file *f = &ep->files[i];
                if (!f->cand || !f->gene_base)
                        continue;
                relocated[i] = strdup(f->cand);
                if (relocated[i])
                        lost += relocate_genes(ep, f->path, f->gene_base, relocated[i]);
        }
        can_keep = can_keep && lost > 0 && lost == live;
        if (can_keep) {
                memcpy(ep->located, located_before, bytes);
                memcpy(ep->lost, lost_before, ep->n_genes * sizeof(*lost_before));
                memcpy(ep->best_values, values_before, ep->n_genes * sizeof(*values_before));
                bump(ep, "genes_kept_past_rewrite");
                log_msg(LOG_INFO, ep->options.log_context,
                        "a tiling rewrite took %zu gene(s); Stage I goes on searching them in "
                        "the text before it",
                        lost);
        } else if (lost) {
                log_msg(LOG_INFO, ep->options.log_context,
                        "a rewrite took %zu of %zu gene(s); Stage I searches the rest in "
                        "the new text",
                        lost, live);
        }
        for (size_t i = 0; i < ep->n_files; i++) {
                struct op_file *f = &ep->files[i];
                if (!f->cand)
                        continue;
                if (relocated[i] && !can_keep) {
                        free(f->gene_base);
                        f->gene_base = relocated[i];
                } else {
                        free(relocated[i]);
                }
                free(f->best);
                f->best = f->cand;
                f->cand = NULL;
        }
        free(located_before);
        free(lost_before);
        free(values_before);
        /* Stage I goes on from the inherited genome, on the new kernel */
        bump(ep, "kernel_changes_unsearched");
        search_record(ep->search, ep->best_values, TECHNIQUE_COUNT, true, latency, NULL);
}

/* A Stage II improvement: adopted, and the rewrite written back to the bank. */
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
                .title = ep->llm_note ? ep->llm_note : "A kernel rewrite by the LLM refiner",
                .description = "The LLM refiner rewrote the kernel for this bottleneck, given "
                               "the entries retrieved for it; the diff shows how.",
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
        adopt_rewrite(ep, latency);
}

/* ------------------------------------------------------------ the LLM */

static json_t *llm_record(struct episode *ep)
{
        json_t *l = json_object_get(ep->record, "llm");

        if (!l) {
                l = json_pack("{s:s?, s:[], s:i, s:i, s:i, s:i, s:i, s:{}}", "model", ep->llm_model,
                              "calls", "requests", 0, "total_tokens", 0, "proposals", 0,
                              "evaluated", 0, "won", 0, "discarded");
                json_object_set_new(ep->record, "llm", l);
        }
        return l;
}

static void llm_add(struct episode *ep, const char *name, json_int_t n)
{
        json_counter_add(llm_record(ep), name, n);
}

/* The record of the last call, where its verdict goes. */
static json_t *llm_last_call(struct episode *ep)
{
        json_t *calls = json_object_get(llm_record(ep), "calls");
        size_t n = json_array_size(calls);

        return n ? json_array_get(calls, n - 1) : NULL;
}

/* The LLM is left alone for the rest of the episode, and the record says why. */
static void llm_turn_off(struct episode *ep, const char *why)
{
        json_object_set_new(llm_record(ep), "off", json_string(why));
        log_msg(LOG_NOTICE, ep->options.log_context, "rules only from now on: %s", why);
}

static bool has_suffix(const char *s, const char *suffix)
{
        size_t n = strlen(s), m = strlen(suffix);

        return n >= m && strcmp(s + n - m, suffix) == 0;
}

/* The op_host source holding the tiling function: the one that names TilingContext. */
static struct op_file *tiling_file(struct episode *ep)
{
        struct op_file *fallback = NULL;

        for (size_t i = 0; i < ep->n_files; i++) {
                struct op_file *f = &ep->files[i];
                if (!f->is_source || strncmp(f->path, "op_host/", 8) != 0 ||
                    !(has_suffix(f->path, ".cpp") || has_suffix(f->path, ".cc")))
                        continue;
                if (strstr(f->best, "TilingContext"))
                        return f;
                if (!fallback && f->gene_base)
                        fallback = f;
        }
        return fallback;
}

static struct op_file *kernel_file(struct episode *ep)
{
        return file_named(ep, ep->manifest->kernel_source);
}

/* Whether this step asks the LLM; Stage I's clock ticks once per step. */
static bool llm_wanted(struct episode *ep, int stage)
{
        json_t *l;
        const char *best, *refined;

        if (!ep->llm.client || ep->llm_skip_once)
                return false;
        l = llm_record(ep);
        if (json_object_get(l, "off"))
                return false;
        if (stage == 1) {
                json_int_t clock = json_integer_value(json_object_get(l, "stage1_clock"));
                int every = ep->llm.stage1_every > 0 ? ep->llm.stage1_every : 3;
                json_object_set_new(l, "stage1_clock", json_integer(clock + 1));
                return tiling_file(ep) && clock % every == 0;
        }
        /* Stage II: the refiner once per best pair */
        best = json_string_value(json_object_get(best_summary(ep), "identity"));
        refined = json_string_value(json_object_get(l, "refined_for"));
        return kernel_file(ep) && best && (!refined || strcmp(refined, best) != 0);
}

/* The op_host headers (the tiling data), as the prompts show them. */
static char *tiling_data_text(struct episode *ep)
{
        size_t len = 0;
        char *text = calloc(1, LLM_TILING_DATA_MAX + 1);

        for (size_t i = 0; text && i < ep->n_files; i++) {
                const struct op_file *f = &ep->files[i];
                int n;
                if (!f->is_source || strncmp(f->path, "op_host/", 8) != 0 ||
                    !has_suffix(f->path, ".h"))
                        continue;
                n = snprintf(text + len, LLM_TILING_DATA_MAX + 1 - len, "// %s\n%s\n", f->path,
                             f->best);
                len = n < 0 ? len : len + (size_t)n;
                if (len >= LLM_TILING_DATA_MAX) {
                        len = LLM_TILING_DATA_MAX;
                        break;
                }
        }
        return text;
}

/* The experience entries the refiner is given: the bank's best matches for the signature. */
static json_t *refiner_entries(struct episode *ep, const char *signature)
{
        size_t k = ep->options.top_k > 0 ? (size_t)ep->options.top_k : 5, i;
        json_t *found = NULL, *kept = json_array(), *e;

        if (kept && dense_for_best(ep))
                found = json_incref((json_t *)dense_for_best(ep));
        else if (!kept || !signature ||
                 experience_retrieve(ep->store, signature, 3 * k, &found) < 0)
                return kept;
        json_array_foreach(found, i, e)
        {
                const char *op = json_string_value(json_object_get(e, "operator"));
                if (json_array_size(kept) >= k)
                        break;
                if (ep->options.leave_one_out && op && strcmp(op, ep->manifest->name) == 0)
                        continue;
                json_array_append(kept, e);
        }
        json_decref(found);
        return kept;
}

/* The template fields of a step's prompt. */
static json_t *llm_prompt_vars(struct episode *ep, int stage)
{
        char *facts = npu_evaluator_platform_facts(ep->evaluator);
        char *tiling_data = tiling_data_text(ep);
        const json_t *best = best_summary(ep);
        double best_us = json_number_value(json_object_get(best, "latency_us"));
        json_t *vars =
            json_pack("{s:s, s:s, s:s, s:s}", "operator", ep->manifest->name, "platform",
                      npu_evaluator_platform(ep->evaluator), "platform_facts",
                      facts ? facts : "(unknown)", "tiling_data", tiling_data ? tiling_data : "");

        free(facts);
        free(tiling_data);
        if (!vars)
                return NULL;
        if (stage == 1) {
                const struct op_file *f = tiling_file(ep);
                json_object_set_new(vars, "tiling_file", json_string(f->path));
                json_object_set_new(vars, "tiling_source", json_string(f->best));
                char *recent = prompts_recent_results(json_object_get(ep->record, "trajectory"),
                                                      LLM_RECENT_ROWS);
                json_object_set_new(vars, "recent_results", json_string(recent ? recent : ""));
                free(recent);
                json_object_set_new(vars, "best_latency_us", json_real(best_us));
        } else {
                const struct op_file *f = kernel_file(ep);
                const char *signature = json_string_value(json_object_get(best, "bottleneck"));
                json_t *result = NULL, *entries = refiner_entries(ep, signature), *e;
                const char *identity = json_string_value(json_object_get(best, "identity"));
                char *profile, *experiences = prompts_experiences(entries);
                size_t i;

                if (identity)
                        store_candidate_get(ep->store, identity, &result);
                profile = prompts_profile_summary(result);
                json_object_set_new(vars, "kernel_file", json_string(f->path));
                json_object_set_new(vars, "kernel", json_string(f->best));
                json_object_set_new(vars, "bottleneck_signature",
                                    json_string(signature ? signature : "(unknown)"));
                json_object_set_new(vars, "profile_summary", json_string(profile ? profile : ""));
                json_object_set_new(vars, "latency_us", json_real(best_us));
                json_object_set_new(vars, "experiences",
                                    json_string(experiences ? experiences : ""));
                json_decref(ep->llm_entries);
                ep->llm_entries = json_array();
                json_array_foreach(entries, i, e)
                    json_array_append(ep->llm_entries, json_object_get(e, "id"));
                free(profile);
                free(experiences);
                json_decref(entries);
                json_decref(result);
        }
        return vars;
}

static void on_llm_answer(struct llm_call *call, const struct llm_result *result, void *userdata);

/* Asks the LLM for this step's candidate; -errno when no call was made (rules go on). */
static int llm_propose(struct episode *ep, int stage)
{
        char err[512] = "", *system = NULL, *user = NULL;
        json_t *vars;
        int r;

        clear_candidate(ep);
        vars = llm_prompt_vars(ep, stage);
        if (!vars)
                return -ENOMEM;
        r = prompts_render(ep->llm_prompts_dir,
                           stage == 1 ? "stage1_mutation.txt" : "stage2_refine.txt", vars, &system,
                           &user, err, sizeof(err));
        json_decref(vars);
        if (r < 0) {
                llm_turn_off(ep, err);
                return r;
        }
        {
                const struct llm_message messages[] = { { "system", system }, { "user", user } };
                r = llm_chat(ep->llm.client, messages, 2, ep->llm_budget, on_llm_answer, ep,
                             &ep->llm_call);
        }
        free(system);
        free(user);
        if (r < 0) {
                log_msg(LOG_WARNING, ep->options.log_context, "cannot ask the LLM: %s",
                        strerror(-r));
                return r;
        }
        if (stage == 2)
                json_object_set(llm_record(ep), "refined_for",
                                json_object_get(best_summary(ep), "identity"));
        llm_add(ep, "requests", 1);
        ep->pending_stage = stage;
        ep->phase = PHASE_LLM;
        return 0;
}

/* The LLM's step came to nothing: say why, and let the rules propose instead. */
static void llm_discard(struct episode *ep, const char *verdict, const char *message)
{
        json_t *call = llm_last_call(ep);
        json_t *discarded = json_object_get(llm_record(ep), "discarded");

        if (call) {
                json_object_set_new(call, "verdict", json_string(verdict));
                if (message && *message)
                        json_object_set_new(call, "message", json_string(message));
        }
        json_counter_add(discarded, verdict, 1);
        log_msg(LOG_INFO, ep->options.log_context, "LLM %s answer discarded (%s)%s%.300s",
                ep->pending_stage == 1 ? "tiling" : "kernel", verdict,
                message && *message ? ": " : "", message ? message : "");
        clear_candidate(ep);
        ep->llm_skip_once = true;
        ep->phase = PHASE_SEARCH;
        if (persist(ep) < 0)
                log_msg(LOG_ERR, ep->options.log_context, "cannot record the LLM's step: %s",
                        store_last_error(ep->store));
        next_candidate(ep);
}

/* The process is stopping: the record stays "running" so the episode resumes. */
static void deliver_stopped(struct episode *ep)
{
        json_t *record = json_incref(ep->record);

        json_object_set_new(record, "state", json_string("stopped"));
        ep->phase = PHASE_DONE;
        ep->done(record, ep->userdata);
        episode_free(ep);
}

static int evaluate_build_only(struct episode *ep)
{
        struct npu_request req = {
                .manifest = ep->manifest,
                .overrides = ep->overrides,
                .n_overrides = ep->n_overrides,
                .seed = ep->options.seed,
                .build_only = true,
        };

        return npu_evaluate(ep->evaluator, &req, on_evaluated, ep, &ep->in_flight);
}

/*
 * A call came back: its record and tokens.  True when the episode ended
 * instead (stopping or cancelled), and the caller must return at once.
 */
static bool llm_call_returned(struct episode *ep, const struct llm_result *result,
                              const char *purpose)
{
        json_t *calls = json_object_get(llm_record(ep), "calls");

        ep->llm_call = NULL;
        llm_add(ep, "total_tokens", result->tokens_charged);
        if (json_array_size(calls) >= LLM_CALLS_RECORDED)
                json_array_remove(calls, 0);
        json_array_append_new(
            calls, json_pack("{s:i, s:s, s:s, s:s, s:I, s:b, s:f, s:i, s:i}", "stage",
                             ep->pending_stage, "purpose", purpose, "prompt_sha256",
                             result->prompt_sha256, "outcome", llm_outcome_name(result->outcome),
                             "tokens", (json_int_t)result->tokens_charged, "tokens_estimated",
                             result->usage_estimated, "latency_s", result->latency_s, "attempts",
                             result->attempts, "at_evaluation", counter(ep, "evaluations")));
        if (ep->stopping) {
                deliver_stopped(ep);
                return true;
        }
        if (ep->cancelled) {
                finish(ep, "cancelled", "cancelled", "cancelled by request");
                return true;
        }
        if (ep->out_of_time) {
                finish_out_of_time(ep);
                return true;
        }
        return false;
}

static void on_llm_answer(struct llm_call *call, const struct llm_result *result, void *userdata)
{
        struct episode *ep = userdata;
        int stage = ep->pending_stage;
        struct op_file *target = stage == 1 ? tiling_file(ep) : kernel_file(ep);
        const char *verdict = NULL;
        char *code = NULL, why[256] = "";
        int r;

        (void)call;
        if (llm_call_returned(ep, result, stage == 1 ? "tiling_mutation" : "kernel_refinement"))
                return;
        switch (result->outcome) {
        case LLM_OK:
                ep->llm_failures = 0;
                r = llm_extract_code_block(result->content, "cpp", &code);
                if (r == -ENOENT)
                        verdict = "no_code_block";
                else if (r == -EBADMSG)
                        verdict = "unterminated_code_block";
                else if (r < 0)
                        verdict = "unreadable_answer";
                else if (!target)
                        verdict = "nothing_to_rewrite";
                else if (strcmp(code, target->best) == 0)
                        verdict = "unchanged";
                break;
        case LLM_BUDGET_EXHAUSTED:
                verdict = "budget_exhausted";
                llm_turn_off(ep, "the episode's LLM token budget is spent");
                break;
        case LLM_TRUNCATED:
                verdict = "truncated";
                break;
        case LLM_MALFORMED:
                verdict = "malformed";
                break;
        case LLM_CANCELLED:
                verdict = "cancelled";
                break;
        case LLM_HTTP_ERROR:
        case LLM_TIMEOUT:
        case LLM_UNREACHABLE:
                verdict = llm_outcome_name(result->outcome);
                if (++ep->llm_failures >= LLM_MAX_FAILURES) {
                        snprintf(why, sizeof(why),
                                 "the LLM endpoint failed %d calls in a row (last: %.150s)",
                                 ep->llm_failures, result->error ? result->error : verdict);
                        llm_turn_off(ep, why);
                }
                break;
        }
        if (verdict) {
                free(code);
                llm_discard(ep, verdict, result->error);
                return;
        }
        /* an answer: built before it is measured, so that one that does not compile costs nothing */
        free(target->cand);
        target->cand = code;
        ep->llm_note = prompts_answer_note(result->content);
        ep->pending_llm = true;
        ep->pending_rewrite = true;
        memcpy(ep->pending, ep->best_values, ep->n_genes * sizeof(*ep->pending));
        if (stage == 2)
                ep->pending_action = json_pack("{s:s, s:n, s:i, s:s, s:O}", "motif", "llm_refine",
                                               "entry", "site", -1, "source", "llm", "entries",
                                               ep->llm_entries ? ep->llm_entries : json_array());
        llm_add(ep, "proposals", 1);
        build_overrides(ep);
        ep->phase = PHASE_LLM_BUILD;
        r = evaluate_build_only(ep);
        if (r < 0)
                llm_discard(ep, "build_not_started", strerror(-r));
}

/* The LLM's answer was built: measure it as a candidate, or discard it. */
static void on_llm_built(struct episode *ep, json_t *result)
{
        const char *status = json_string_value(json_object_get(result, "status"));
        const char *message =
            json_string_value(json_object_get(json_object_get(result, "error"), "message"));

        if (!status || strcmp(status, "ok") != 0) {
                char verdict[64];
                char *copy = message ? strdup(message) : NULL;
                snprintf(verdict, sizeof(verdict), "%s",
                         status && strcmp(status, "compile_error") == 0
                             ? "does_not_compile"
                             : (status ? status : "unknown"));
                json_decref(result);
                llm_discard(ep, verdict, copy);
                free(copy);
                return;
        }
        json_decref(result);
        json_object_set_new(llm_last_call(ep), "verdict", json_string("built"));
        ep->phase = PHASE_SEARCH;
        if (evaluate(ep, ep->options.seed, ep->baseline, false, false, true) < 0)
                finish(ep, "failed", "infra_error", "cannot start the LLM's candidate");
}

/* An LLM candidate was measured: its trajectory step, the counters and the entries' credit. */
static void llm_recorded(struct episode *ep, json_t *step, bool ok, bool new_best)
{
        json_t *call = llm_last_call(ep), *id;
        size_t i;

        json_object_set_new(step, "source", json_string("llm"));
        if (ep->llm_note)
                json_object_set_new(step, "llm_note", json_string(ep->llm_note));
        if (ep->llm_entries && ep->pending_stage == 2)
                json_object_set(step, "entries", ep->llm_entries);
        llm_add(ep, "evaluated", 1);
        if (new_best)
                llm_add(ep, "won", 1);
        if (call)
                json_object_set_new(call, "verdict",
                                    json_string(new_best ? "new_best"
                                                : ok     ? "not_faster"
                                                         : "failed"));
        if (ep->pending_stage == 2 && !ep->options.frozen_bank)
                json_array_foreach(
                    ep->llm_entries, i,
                    id) if (experience_credit(ep->store, json_string_value(id), new_best) < 0)
                    log_msg(LOG_WARNING, ep->options.log_context,
                            "cannot credit experience entry %.12s", json_string_value(id));
}

/* ------------------------------------------------------------ dense retrieval */

/* Whether Stage II should embed before it retrieves for the current best. */
static bool embed_wanted(struct episode *ep)
{
        const json_t *best = best_summary(ep);
        const char *identity = json_string_value(json_object_get(best, "identity"));

        if (!ep->llm.client || !ep->llm.embedding_model || !uses_stage2(ep) ||
            json_object_get(llm_record(ep), "embeddings_off"))
                return false;
        return identity && json_string_value(json_object_get(best, "bottleneck")) &&
               (!ep->dense_for || strcmp(ep->dense_for, identity) != 0);
}

static void embeddings_off(struct episode *ep, const char *why)
{
        json_object_set_new(llm_record(ep), "embeddings_off", json_string(why));
        log_msg(LOG_NOTICE, ep->options.log_context, "BM25 retrieval from now on: %s", why);
}

static void on_embedded(struct llm_call *call, const struct llm_result *result, void *userdata);

/*
 * Embeds, for the current best: first the bank's entries that have no
 * embedding by this model yet (up to EMBED_ENTRIES_PER_CALL), then the
 * best's bottleneck signature, which becomes the dense query.
 */
static int embed_start(struct episode *ep, bool query)
{
        const char *signature = json_string_value(json_object_get(best_summary(ep), "bottleneck"));
        char *texts[EMBED_ENTRIES_PER_CALL];
        json_t *entries = NULL, *e;
        size_t n = 0, i;
        int r;

        json_decref(ep->embed_ids);
        ep->embed_ids = json_array();
        if (!ep->embed_ids)
                return -ENOMEM;
        if (!query && experience_list(ep->store, &entries) == 0)
                json_array_foreach(entries, i, e)
                {
                        const char *model =
                            json_string_value(json_object_get(e, "embedding_model"));
                        if (n == EMBED_ENTRIES_PER_CALL)
                                break;
                        if (model && strcmp(model, ep->llm.embedding_model) == 0 &&
                            json_object_get(e, "embedding"))
                                continue;
                        texts[n] = experience_embedding_text(e);
                        if (!texts[n])
                                continue;
                        json_array_append(ep->embed_ids, json_object_get(e, "id"));
                        n++;
                }
        json_decref(entries);
        ep->embed_query = n == 0;
        if (n == 0) {
                texts[0] = strdup(signature ? signature : "");
                if (!texts[0])
                        return -ENOMEM;
                n = 1;
        }
        r = llm_embed(ep->llm.client, (const char *const *)texts, n, ep->llm_budget, on_embedded,
                      ep, &ep->llm_call);
        for (i = 0; i < n; i++)
                free(texts[i]);
        if (r < 0) {
                embeddings_off(ep, "the embedding call could not be made");
                return r;
        }
        llm_add(ep, "requests", 1);
        ep->pending_stage = 2;
        ep->phase = PHASE_LLM;
        return 0;
}

/* The dense ranking for the current best, leave-one-out applied. */
static void dense_retrieve(struct episode *ep, const float *query, size_t dim)
{
        size_t k = ep->options.top_k > 0 ? (size_t)ep->options.top_k : 5;
        const char *identity = json_string_value(json_object_get(best_summary(ep), "identity"));
        json_t *found = NULL;

        if (experience_retrieve_dense(ep->store, query, dim, ep->llm.embedding_model, 3 * k,
                                      &found) < 0) {
                embeddings_off(ep, "dense retrieval failed");
                return;
        }
        for (size_t i = json_array_size(found); ep->options.leave_one_out && i-- > 0;) {
                const char *op =
                    json_string_value(json_object_get(json_array_get(found, i), "operator"));
                if (op && strcmp(op, ep->manifest->name) == 0)
                        json_array_remove(found, i);
        }
        llm_add(ep, "dense_retrievals", 1);
        json_decref(ep->dense);
        ep->dense = found;
        free(ep->dense_for);
        ep->dense_for = identity ? strdup(identity) : NULL;
}

static void on_embedded(struct llm_call *call, const struct llm_result *result, void *userdata)
{
        struct episode *ep = userdata;

        (void)call;
        if (llm_call_returned(ep, result, ep->embed_query ? "embed_query" : "embed_entries"))
                return;
        if (result->outcome != LLM_OK) {
                char why[300];
                snprintf(why, sizeof(why), "the embedding endpoint: %s%s%.200s",
                         llm_outcome_name(result->outcome), result->error ? ": " : "",
                         result->error ? result->error : "");
                embeddings_off(ep, why);
        } else if (!ep->embed_query) {
                const char *ids[EMBED_ENTRIES_PER_CALL];
                size_t n = json_array_size(ep->embed_ids);
                for (size_t i = 0; i < n; i++)
                        ids[i] = json_string_value(json_array_get(ep->embed_ids, i));
                if (result->n_vectors != n ||
                    experience_set_embeddings(ep->store, ids, result->vectors, n, result->dim,
                                              ep->llm.embedding_model) < 0)
                        embeddings_off(ep, "cannot store the entries' embeddings");
                else if (embed_start(ep, true) == 0)
                        return;
        } else {
                dense_retrieve(ep, result->vectors, result->dim);
        }
        ep->phase = PHASE_SEARCH;
        next_candidate(ep);
}

/*
 * The pending genome's gene files (moves made) become the best pair's,
 * with its values; gene_files_only leaves other files' candidates (a
 * kernel rewrite made on that genome) for adopt_rewrite.
 */
static void adopt_genome(struct episode *ep, bool gene_files_only)
{
        for (size_t i = 0; i < ep->n_files; i++) {
                struct op_file *f = &ep->files[i];
                if (!f->cand || (gene_files_only && !f->gene_base))
                        continue;
                free(f->best);
                f->best = f->cand;
                f->cand = NULL;
        }
        memcpy(ep->best_values, ep->pending, ep->n_genes * sizeof(*ep->pending));
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
        if (ep->pending_stage == 1 && !ep->pending_rewrite) {
                const char *why =
                    ok ? NULL
                       : (confirmed_ok ? failure_kind(result) : "wrong_answer_on_second_seed");
                new_best =
                    search_record(ep->search, ep->pending, ep->pending_technique, ok, latency, why);
        } else {
                new_best = ok && latency < best_before;
        }
        if (!ok && strcmp(kind, "slow") == 0)
                bump(ep, "slow"); /* stopped early: too slow to matter, not a failure */
        else if (!ok)
                json_counter_add(failures, kind, 1);
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
                if (!ok && kind && strcmp(kind, "ub_overflow") == 0)
                        bump_in(ep, "motifs", what, "overflowed");
                if (new_best)
                        bump_in(ep, "motifs", what, "won");
                if (entry && !ep->options.frozen_bank &&
                    experience_credit(ep->store, entry, new_best) < 0)
                        log_msg(LOG_WARNING, ep->options.log_context,
                                "cannot credit experience entry %.12s", entry);
                if (json_integer_value(json_object_get(ep->pending_action, "shrink")) > 0) {
                        json_object_set(step, "repair",
                                        json_object_get(ep->pending_action, "shrink"));
                        bump_in(ep, "motifs", what, "overflow_repairs");
                        if (new_best) /* the shrunk tiling first, then the kernel rewrite */
                                adopt_genome(ep, true);
                }
                if (new_best)
                        accept_stage2(ep, latency);
                else if (kind && strcmp(kind, "ub_overflow") == 0)
                        plan_overflow_repair(ep);
        } else if (new_best && ep->pending_rewrite) {
                adopt_rewrite(ep, latency);
        } else if (new_best) {
                adopt_genome(ep, false);
        }
        if (ep->pending_llm)
                llm_recorded(ep, step, ok, new_best);
        if (json_object_get(result, "remeasured_us"))
                json_object_set(step, "remeasured_us", json_object_get(result, "remeasured_us"));
        if (ep->pending_stage == 1 && !ep->pending_rewrite && ep->pending_move[0])
                json_object_set_new(step, "moves", json_string(ep->pending_move));
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
                if (json_object_get(step, "moves"))
                        json_object_set(best, "moves", json_object_get(step, "moves"));
                json_object_set_new(ep->record, "best", best);
        }
        if (persist(ep) < 0)
                log_msg(LOG_ERR, ep->options.log_context,
                        "cannot record evaluation %d; the episode goes on: %s",
                        counter(ep, "evaluations"), store_last_error(ep->store));
        report(ep, what, ep->pending_stage, result, new_best);
        clear_candidate(ep);
}

/* A result evaluated with its outputs kept that is not kept after all: its scratch goes too. */
static void discard_kept(json_t *result)
{
        const char *dir = json_string_value(json_object_get(result, "scratch_dir"));

        if (dir)
                rm_rf(dir);
        json_decref(result);
}

static void on_baseline(struct episode *ep, json_t *result)
{
        const char *status = json_string_value(json_object_get(result, "status"));
        double latency = json_number_value(json_object_get(result, "latency_us"));
        char message[2048];
        json_t *summary;

        if (status && strcmp(status, "infra_error") == 0) {
                /* a busy device or a missing tool says nothing about the operator: the
                 * episode fails as infra_error, which the scheduler retries later */
                const json_t *error = json_object_get(result, "error");
                snprintf(message, sizeof(message), "the baseline could not be measured: %s",
                         json_string_value(json_object_get(error, "message"))
                             ? json_string_value(json_object_get(error, "message"))
                             : "no message");
                discard_kept(result);
                finish(ep, "failed", "infra_error", message);
                return;
        }
        if (!status || strcmp(status, "ok") != 0) {
                const json_t *error = json_object_get(result, "error");
                const char *kind = failure_kind(result) ?: "failed";
                /* only the simulator's rules can be relaxed; a compiler's error, a
                 * crash, a failing tiling function or a wrong answer cannot */
                bool rule = strcmp(kind, "compile_error") != 0 && strcmp(kind, "timeout") != 0 &&
                            strcmp(kind, "infra_error") != 0 && strcmp(kind, "tiling_error") != 0 &&
                            strcmp(kind, "crash") != 0 && strcmp(kind, "wrong_answer") != 0;
                snprintf(message, sizeof(message), "the baseline itself fails: %s: %s%s", kind,
                         json_string_value(json_object_get(error, "message"))
                             ? json_string_value(json_object_get(error, "message"))
                             : "no message",
                         rule ? " (use --permissive RULE for code that relies on hardware "
                                "leniency)"
                              : "");
                discard_kept(result);
                finish(ep, "failed", "baseline", message);
                return;
        }
        if (latency <= 0) {
                discard_kept(result);
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
                log_msg(LOG_ERR, ep->options.log_context, "cannot record the baseline: %s",
                        store_last_error(ep->store));
        report(ep, "baseline", 0, result, false);
        next_candidate(ep);
}

/*
 * The noise policy's second half: a new best that beats the old one by
 * less than the margin counts with the slower of its two measurements (the
 * first and the confirmation's), so a noisy "improvement" that does not
 * hold is not accepted.
 */
double episode_noise_latency(double first_us, double again_us, double best_us, double margin_pct)
{
        if (first_us <= 0 || again_us <= 0 || best_us <= 0 ||
            first_us < best_us * (1 - margin_pct / 100))
                return first_us;
        return again_us > first_us ? again_us : first_us;
}

static void remeasure_if_close(struct episode *ep, json_t *first, const json_t *again)
{
        double margin = ep->options.noise_margin_pct > 0 ? ep->options.noise_margin_pct
                                                         : EPISODE_NOISE_MARGIN_PCT;
        double best = 0, a = json_number_value(json_object_get(first, "latency_us"));
        double b = json_number_value(json_object_get(again, "latency_us"));

        if (!search_best(ep->search, &best) || a <= 0 || b <= 0 || a < best * (1 - margin / 100))
                return; /* a clear win, or nothing to compare */
        json_object_set_new(first, "remeasured_us", json_real(b));
        json_object_set_new(first, "latency_us",
                            json_real(episode_noise_latency(a, b, best, margin)));
        bump(ep, "remeasured");
}

static void on_evaluated(json_t *result, bool memo_hit, void *userdata)
{
        struct episode *ep = userdata;
        const char *status = json_string_value(json_object_get(result, "status"));
        double best = 0;

        ep->in_flight = NULL;
        if (ep->stopping) {
                json_decref(result);
                deliver_stopped(ep);
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
                if (confirmed)
                        remeasure_if_close(ep, first, result);
                record_candidate(ep, first, false, confirmed);
                json_decref(first);
                json_decref(result);
                next_candidate(ep);
                return;
        }
        case PHASE_LLM_BUILD:
                on_llm_built(ep, result);
                return;
        case PHASE_LLM:
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
        npu_job_cancel(ep->in_flight);
        if (ep->llm_call)
                llm_call_cancel(ep->llm_call);
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
        ep->options.llm = NULL;
        if (options->llm && options->llm->client) {
                ep->llm = *options->llm;
                ep->llm_prompts_dir =
                    options->llm->prompts_dir ? strdup(options->llm->prompts_dir) : NULL;
                ep->llm_model = options->llm->model ? strdup(options->llm->model) : NULL;
                ep->llm_embedding_model =
                    options->llm->embedding_model ? strdup(options->llm->embedding_model) : NULL;
                ep->llm.prompts_dir = ep->llm_prompts_dir;
                ep->llm.model = ep->llm_model;
                ep->llm.embedding_model = ep->llm_embedding_model;
        }
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
        r = load_files(ep);
        if (r == 0)
                r = add_move_genes(ep);
        if (r < 0) {
                snprintf(err, err_size, "%s: cannot read the operator's sources: %s",
                         ep->manifest->dir, strerror(-r));
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
        /* without genes (move genes included), Stage I and Best-of-N have nothing to search */
        if (ep->n_genes == 0 && !uses_stage2(ep)) {
                snprintf(err, err_size,
                         "%s: no tunable literal found in op_host/ and no structural tiling "
                         "move applies; mark knobs with a comment // @tune lo..hi on their line",
                         ep->manifest->dir);
                r = -ENOENT;
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
                /* the same episode finished before: replay it from the memo */
                if (old &&
                    strcmp(json_string_value(json_object_get(old, "state")) ?: "", "done") == 0 &&
                    strcmp(json_string_value(json_object_get(old, "strategy")) ?: "",
                           episode_strategy_name(options->strategy)) == 0 &&
                    json_integer_value(json_object_get(old, "budget")) == ep->options.budget)
                        ep->replay_rows = json_array_size(json_object_get(old, "trajectory"));
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
        if (ep->llm.client) {
                /* a resumed episode has spent part of its tokens already */
                int64_t used = json_integer_value(
                    json_object_get(json_object_get(ep->record, "llm"), "total_tokens"));
                int64_t left = ep->llm.token_budget - used;
                ep->llm_budget = llm_budget_new(left > 0 ? left : 0);
                if (!ep->llm_budget) {
                        r = -ENOMEM;
                        goto fail;
                }
                llm_record(ep);
        }
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
