/* SPDX-License-Identifier: MIT */
/*
 * Rewind: walks an expert kernel backwards, one inverse motif site at a
 * time, on the evaluator's event loop, and distils every significant,
 * correct slowdown into an experience entry whose diff leads back from
 * the slow version to the fast one.  The state machine has the shape of
 * episode.c: evaluate the expert (kept as the correctness reference), then
 * propose, evaluate and record candidates until nothing is left to try.
 * With an LLM, the distiller rewrites each kept entry's title, description
 * and bottleneck, and once the motifs are spent the inverse agent proposes
 * a few de-optimizations of its own, judged like any other step.
 */
#include "optimizer.h"
#include "prompts-internal.h"

#include "common/common.h"
#include "llm/llm.h"
#include "npu/npu.h"
#include "store/store.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define MAX_FILES      32
#define MAX_FILE_BYTES (4u << 20)
#define INVERSE_TRIES  3 /* de-optimizations asked of the LLM per walk */
#define LLM_INVERSE    "llm_inverse"

enum phase {
        PHASE_EXPERT,
        PHASE_CANDIDATE,
        PHASE_LLM,       /* waiting for the distiller or the inverse agent */
        PHASE_LLM_BUILD, /* building the inverse agent's kernel */
        PHASE_DONE,
};

/* A version of the operator: every file, sorted by path (paths and texts owned). */
struct version {
        struct motif_file files[MAX_FILES];
        size_t n;
};

struct rewind {
        struct npu_evaluator *evaluator;
        struct store *store;
        struct npu_manifest *manifest;
        struct rewind_options options;
        rewind_progress_fn progress;
        rewind_done_fn done;
        void *userdata;

        const struct motif **motifs;
        size_t n_motifs;
        bool *motif_kept;

        enum phase phase;
        bool cancelled;
        struct npu_job *in_flight;
        json_t *reference; /* the expert's result, outputs kept */
        json_t *summary;
        json_t *tried;       /* site keys already tried: true, or false when deferred */
        bool final_pass;     /* deferred sites may be taken now */
        char key[600];       /* the site in flight */
        struct version fast; /* the current version */
        double fast_us;
        char *fast_identity;
        struct version slow; /* the candidate in flight */
        struct npu_override overrides[MAX_FILES];
        size_t n_overrides;

        /* where the scan resumes, and what the candidate in flight is */
        size_t motif_i, site_i;
        struct motif_site site;
        size_t site_index;

        /* the optional LLM: llm.client NULL means motifs only */
        struct episode_llm llm;
        char *llm_prompts_dir, *llm_model;
        struct llm_budget *llm_budget;
        struct llm_call *llm_call;
        bool llm_candidate;               /* the candidate in flight is the inverse agent's */
        char *llm_note;                   /* what the inverse agent says it undid */
        char distill_id[SHA256_HEX_SIZE]; /* the entry the distiller is rewriting */
};

/* ------------------------------------------------------------ versions */

static void version_release(struct version *v)
{
        for (size_t i = 0; i < v->n; i++) {
                free((void *)v->files[i].path);
                free((void *)v->files[i].text);
        }
        v->n = 0;
}

static int version_copy(struct version *dst, const struct version *src)
{
        version_release(dst);
        for (size_t i = 0; i < src->n; i++) {
                dst->files[i].path = strdup(src->files[i].path);
                dst->files[i].text = strdup(src->files[i].text);
                dst->n++;
                if (!dst->files[i].path || !dst->files[i].text)
                        return -ENOMEM;
        }
        return 0;
}

/* Sets path's text (a copy), replacing it or adding it in path order. */
static int version_set(struct version *v, const char *path, const char *text)
{
        size_t at = 0;
        char *p, *t;

        while (at < v->n && strcmp(v->files[at].path, path) < 0)
                at++;
        t = strdup(text);
        if (!t)
                return -ENOMEM;
        if (at < v->n && strcmp(v->files[at].path, path) == 0) {
                free((void *)v->files[at].text);
                v->files[at].text = t;
                return 0;
        }
        if (v->n == MAX_FILES) {
                free(t);
                return -E2BIG;
        }
        p = strdup(path);
        if (!p) {
                free(t);
                return -ENOMEM;
        }
        memmove(&v->files[at + 1], &v->files[at], (v->n - at) * sizeof(v->files[0]));
        v->files[at].path = p;
        v->files[at].text = t;
        v->n++;
        return 0;
}

static const char *version_text(const struct version *v, const char *path)
{
        for (size_t i = 0; i < v->n; i++)
                if (strcmp(v->files[i].path, path) == 0)
                        return v->files[i].text;
        return NULL;
}

static int read_text(const char *path, char **ret)
{
        FILE *f = fopen(path, "re");
        char *text = NULL;
        long size;
        int r = 0;

        if (!f)
                return -errno;
        if (fseek(f, 0, SEEK_END) < 0 || (size = ftell(f)) < 0 || fseek(f, 0, SEEK_SET) < 0) {
                r = -EIO;
                goto out;
        }
        if ((unsigned long)size > MAX_FILE_BYTES) {
                r = -EFBIG;
                goto out;
        }
        text = calloc(1, (size_t)size + 1);
        if (!text) {
                r = -ENOMEM;
                goto out;
        }
        if (fread(text, 1, (size_t)size, f) != (size_t)size || memchr(text, '\0', (size_t)size)) {
                free(text);
                r = -EIO;
                goto out;
        }
        *ret = text;
out:
        fclose(f);
        return r;
}

/* Lays the regular files of root/sub over v, as sub/NAME. */
static int load_dir(struct version *v, const char *root, const char *sub, char *err,
                    size_t err_size)
{
        char dir[PATH_MAX];
        DIR *d;
        struct dirent *e;
        int r = 0;

        if (format_path(dir, sizeof(dir), "%s/%s", root, sub) < 0)
                return -ENAMETOOLONG;
        d = opendir(dir);
        if (!d)
                return errno == ENOENT ? 0 : -errno;
        while ((e = readdir(d))) {
                char full[PATH_MAX], rel[PATH_MAX];
                struct stat st;
                char *text = NULL;
                if (e->d_name[0] == '.' ||
                    format_path(full, sizeof(full), "%s/%s", dir, e->d_name) < 0 ||
                    format_path(rel, sizeof(rel), "%s/%s", sub, e->d_name) < 0 ||
                    stat(full, &st) < 0 || !S_ISREG(st.st_mode))
                        continue;
                r = read_text(full, &text);
                if (r == 0)
                        r = version_set(v, rel, text);
                free(text);
                if (r < 0) {
                        snprintf(err, err_size, "%s: cannot read it: %s", full, strerror(-r));
                        break;
                }
        }
        closedir(d);
        return r;
}

bool rewind_has_expert(const char *opdir)
{
        char dir[PATH_MAX];
        struct stat st;

        return opdir && format_path(dir, sizeof(dir), "%s/expert/op_kernel", opdir) == 0 &&
               stat(dir, &st) == 0 && S_ISDIR(st.st_mode);
}

/* The expert: the baseline's files with the expert's laid over them, and the manifest. */
static int load_expert(struct rewind *rw, char *err, size_t err_size)
{
        static const char *const subdirs[] = { "op_host", "op_kernel" };
        const char *dir = rw->manifest->dir;
        char expert[PATH_MAX], manifest[PATH_MAX];
        char *text = NULL;
        int r;

        if (format_path(expert, sizeof(expert), "%s/expert", dir) < 0 ||
            format_path(manifest, sizeof(manifest), "%s/ascendopt.json", dir) < 0)
                return -ENAMETOOLONG;
        for (size_t s = 0; s < ARRAY_SIZE(subdirs); s++) {
                r = load_dir(&rw->fast, dir, subdirs[s], err, err_size);
                if (r < 0)
                        return r;
        }
        for (size_t s = 0; s < ARRAY_SIZE(subdirs); s++) {
                r = load_dir(&rw->fast, expert, subdirs[s], err, err_size);
                if (r < 0)
                        return r;
        }
        /* motifs read auto_sync from it; it is never rewritten or overridden */
        r = read_text(manifest, &text);
        if (r == 0)
                r = version_set(&rw->fast, "ascendopt.json", text);
        free(text);
        if (r < 0)
                snprintf(err, err_size, "%s: cannot read it: %s", manifest, strerror(-r));
        return r;
}

static bool is_operator_file(const char *path)
{
        return strncmp(path, "op_host/", 8) == 0 || strncmp(path, "op_kernel/", 10) == 0;
}

static void set_overrides(struct rewind *rw, const struct version *v)
{
        rw->n_overrides = 0;
        for (size_t i = 0; i < v->n; i++) {
                if (!is_operator_file(v->files[i].path))
                        continue;
                rw->overrides[rw->n_overrides].path = v->files[i].path;
                rw->overrides[rw->n_overrides].text = v->files[i].text;
                rw->n_overrides++;
        }
}

/* ------------------------------------------------------------ the summary */

static void rewind_free(struct rewind *rw)
{
        if (!rw)
                return;
        if (rw->reference)
                rm_rf(json_string_value(json_object_get(rw->reference, "scratch_dir")));
        json_decref(rw->reference);
        json_decref(rw->summary);
        json_decref(rw->tried);
        version_release(&rw->fast);
        version_release(&rw->slow);
        llm_budget_free(rw->llm_budget);
        free(rw->llm_prompts_dir);
        free(rw->llm_model);
        free(rw->llm_note);
        free(rw->fast_identity);
        free(rw->motifs);
        free(rw->motif_kept);
        npu_manifest_free(rw->manifest);
        free(rw);
}

static void finish(struct rewind *rw, const char *state, const char *error)
{
        json_t *summary = json_incref(rw->summary);

        rw->phase = PHASE_DONE;
        json_object_set_new(summary, "state", json_string(state));
        if (error)
                json_object_set_new(summary, "error", json_string(error));
        json_object_set_new(summary, "final_us", json_real(rw->fast_us));
        rw->done(summary, rw->userdata);
        rewind_free(rw);
}

static int counter(struct rewind *rw, const char *name)
{
        return (int)json_integer_value(json_object_get(rw->summary, name));
}

static void bump(struct rewind *rw, const char *name)
{
        json_object_set_new(rw->summary, name, json_integer(counter(rw, name) + 1));
}

static void count_failure(struct rewind *rw, const char *motif, const char *kind)
{
        json_t *failures = json_object_get(rw->summary, "failures");
        json_t *by_motif = json_object_get(failures, motif);

        if (!by_motif) {
                by_motif = json_object();
                json_object_set_new(failures, motif, by_motif);
        }
        json_object_set_new(by_motif, kind,
                            json_integer(json_integer_value(json_object_get(by_motif, kind)) + 1));
}

static void llm_verdict(struct rewind *rw, const char *verdict);

/* The motif of the candidate in flight, or the inverse agent's name. */
static const char *candidate_name(const struct rewind *rw)
{
        if (rw->llm_candidate || rw->motif_i >= rw->n_motifs)
                return LLM_INVERSE;
        return rw->motifs[rw->motif_i]->name;
}

static void report(struct rewind *rw, const char *status, const char *outcome, double after_us,
                   bool memo_hit, bool kept, bool new_entry)
{
        struct rewind_progress p = {
                .operator_name = rw->manifest->name,
                .step = counter(rw, "kept"),
                .tries = counter(rw, "tries"),
                .motif = candidate_name(rw),
                .site = &rw->site,
                .site_index = rw->site_index,
                .status = status,
                .outcome = outcome,
                .before_us = rw->fast_us,
                .after_us = after_us,
                .memo_hit = memo_hit,
                .kept = kept,
                .new_entry = new_entry,
        };

        if (json_array_append_new(json_object_get(rw->summary, "tried"),
                                  json_pack("{s:s, s:s, s:i, s:s, s:s, s:f, s:f}", "motif", p.motif,
                                            "file", rw->site.file, "line", rw->site.line, "site",
                                            rw->site.what, "outcome", outcome, "before_us",
                                            rw->fast_us, "after_us", after_us)) < 0)
                log_error("%s: cannot record the try of %s (out of memory)", rw->manifest->name,
                          p.motif);
        if (rw->llm_candidate)
                llm_verdict(rw, outcome);
        if (rw->progress)
                rw->progress(&p, rw->userdata);
}

/* ------------------------------------------------------------ entries */

/* The unified diffs from slow to fast of every file that differs, in path order. */
static char *diff_versions(const struct version *slow, const struct version *fast)
{
        char *out = strdup("");

        for (size_t i = 0; out && i < fast->n; i++) {
                const char *path = fast->files[i].path;
                const char *before = version_text(slow, path);
                char *d, *grown;
                if (!before || strcmp(before, fast->files[i].text) == 0)
                        continue;
                d = text_unified_diff(path, before, path, fast->files[i].text);
                grown = d ? malloc(strlen(out) + strlen(d) + 1) : NULL;
                if (grown) {
                        strcpy(grown, out);
                        strcat(grown, d);
                }
                free(d);
                free(out);
                out = grown;
        }
        return out;
}

/* The id experience_put gives an entry: SHA-256 of the motif, a NUL and the diff. */
static void entry_id(const char *motif, const char *diff, char id[SHA256_HEX_SIZE])
{
        uint8_t digest[SHA256_DIGEST_SIZE];
        struct sha256 s;

        sha256_init(&s);
        sha256_update(&s, motif, strlen(motif) + 1);
        sha256_update(&s, diff, strlen(diff));
        sha256_final(&s, digest);
        sha256_hex(digest, id);
}

/*
 * Writes the entry of a kept step; *ret_new says whether the bank lacked
 * it.  An entry already there keeps its statistics.
 */
static int put_entry(struct rewind *rw, const char *name, const char *title,
                     const char *description, const json_t *slow, double slow_us,
                     char id[SHA256_HEX_SIZE], bool *ret_new)
{
        const char *signature = json_string_value(json_object_get(slow, "bottleneck"));
        char *computed = NULL, *diff = NULL, key[SHA256_HEX_SIZE + 16];
        json_t *entry = NULL, *old = NULL;
        struct store_batch *b = NULL;
        int r;

        if (!signature)
                signature = computed = npu_bottleneck_signature(json_object_get(slow, "profile"));
        diff = diff_versions(&rw->slow, &rw->fast);
        if (!diff || !signature) {
                r = diff ? -EINVAL : -ENOMEM;
                goto out;
        }
        entry = json_pack("{s:s, s:s, s:s, s:s, s:s, s:f, s:f, s:f, s:s, s:i, s:s, s:s, s:s, "
                          "s:s, s:I}",
                          "title", title, "description", description, "motif", name, "bottleneck",
                          signature, "diff", diff, "gain", slow_us / rw->fast_us, "slow_us",
                          slow_us, "fast_us", rw->fast_us, "operator", rw->manifest->name, "level",
                          rw->manifest->level, "origin", "rewind", "backend",
                          json_string_value(json_object_get(slow, "backend")) ?: "sim", "platform",
                          json_string_value(json_object_get(slow, "platform")) ?: "Ascend910B2",
                          "site", rw->site.what, "seed", (json_int_t)rw->options.seed);
        if (!entry) {
                r = -ENOMEM;
                goto out;
        }
        entry_id(name, diff, id);
        snprintf(key, sizeof(key), "entry/%s", id);
        r = store_get_json(rw->store, STORE_EXPERIENCE, key, &old);
        if (r < 0 && r != -ENOENT)
                goto out;
        *ret_new = r == -ENOENT;
        if (old) {
                json_object_set(entry, "uses", json_object_get(old, "uses"));
                json_object_set(entry, "wins", json_object_get(old, "wins"));
        }
        b = store_batch_new(rw->store);
        r = b ? experience_put(b, entry, id) : -ENOMEM;
        if (r == 0)
                r = store_batch_commit(b);
out:
        store_batch_free(b);
        json_decref(entry);
        json_decref(old);
        free(computed);
        free(diff);
        return r;
}

/* ------------------------------------------------------------ the walk */

static void on_evaluated(json_t *result, bool memo_hit, void *userdata);

static int evaluate(struct rewind *rw, const struct version *v, const json_t *reference, bool keep)
{
        struct npu_request req = {
                .manifest = rw->manifest,
                .seed = rw->options.seed,
                .reference = reference,
                .keep_outputs = keep,
                .bypass_memo = keep,
        };

        set_overrides(rw, v);
        req.overrides = rw->overrides;
        req.n_overrides = rw->n_overrides;
        return npu_evaluate(rw->evaluator, &req, on_evaluated, rw, &rw->in_flight);
}

/*
 * The key of site i among sites: motif, file and description, with its
 * occurrence among the earlier sites that read the same, so that it does
 * not depend on line numbers an earlier step shifted.
 */
static void site_key(const struct motif *motif, const struct motif_site *sites, size_t i, char *buf,
                     size_t size)
{
        size_t occurrence = 0;

        for (size_t j = 0; j < i; j++)
                occurrence += strcmp(sites[j].file, sites[i].file) == 0 &&
                              strcmp(sites[j].what, sites[i].what) == 0;
        snprintf(buf, size, "%s|%s|%s|%zu", motif->name, sites[i].file, sites[i].what, occurrence);
}

/*
 * Makes the next candidate into rw->slow and starts its evaluation: the
 * first untried site of the first motif not yet kept.  Returns 1 when
 * nothing is left to try.
 */
static int next_candidate(struct rewind *rw)
{
        if (counter(rw, "kept") >= rw->options.max_steps ||
            counter(rw, "tries") >= rw->options.max_tries)
                return 1;
        for (; rw->motif_i < rw->n_motifs; rw->motif_i++, rw->site_i = 0) {
                const struct motif *motif = rw->motifs[rw->motif_i];
                struct motif_site *sites = NULL;
                size_t n_sites = 0;
                int r;

                if (rw->motif_kept[rw->motif_i])
                        continue;
                r = motif_detect(motif, MOTIF_INVERSE, rw->fast.files, rw->fast.n, &sites,
                                 &n_sites);
                if (r < 0)
                        return r;
                for (; rw->site_i < n_sites; rw->site_i++) {
                        struct motif_file *changed = NULL;
                        size_t n_changed = 0;
                        char key[600];

                        site_key(motif, sites, rw->site_i, key, sizeof(key));
                        if (json_is_true(json_object_get(rw->tried, key)) ||
                            (json_is_false(json_object_get(rw->tried, key)) && !rw->final_pass))
                                continue;
                        json_object_set_new(rw->tried, key, json_true());
                        snprintf(rw->key, sizeof(rw->key), "%s", key);
                        rw->site = sites[rw->site_i];
                        rw->site_index = rw->site_i;
                        r = motif_apply(motif, MOTIF_INVERSE, rw->fast.files, rw->fast.n,
                                        rw->site_i, &changed, &n_changed);
                        if (r == 0 && n_changed == 0)
                                r = -ENODATA;
                        if (r == 0)
                                r = version_copy(&rw->slow, &rw->fast);
                        for (size_t c = 0; r == 0 && c < n_changed; c++)
                                r = version_set(&rw->slow, changed[c].path, changed[c].text);
                        motif_files_free(changed, n_changed);
                        if (r == -ENOMEM) {
                                free(sites);
                                return r;
                        }
                        if (r < 0) {
                                /* a rewrite that cannot be made says nothing about speed */
                                count_failure(rw, motif->name, "apply_error");
                                report(rw, "apply_error", "apply_error", 0, false, false, false);
                                continue;
                        }
                        free(sites);
                        rw->site_i++;
                        bump(rw, "tries");
                        rw->phase = PHASE_CANDIDATE;
                        return evaluate(rw, &rw->slow, rw->reference, false);
                }
                free(sites);
        }
        return 1;
}

/* Whether a site was deferred and is still waiting for the final pass. */
static bool any_deferred(const struct rewind *rw)
{
        const char *key;
        json_t *value;

        json_object_foreach(rw->tried, key, value) if (json_is_false(value)) return true;
        return false;
}

static bool inverse_start(struct rewind *rw);

static void advance(struct rewind *rw)
{
        int r;

        rw->llm_candidate = false;
        r = next_candidate(rw);
        if (r == 1 && !rw->final_pass && any_deferred(rw)) {
                /* the steps that would have drowned the others come last */
                rw->final_pass = true;
                rw->motif_i = 0;
                rw->site_i = 0;
                r = next_candidate(rw);
        }
        /* the motifs are spent: the LLM may know a de-optimization they do not */
        if (r == 1 && inverse_start(rw))
                return;
        if (r == 1)
                finish(rw, "done", NULL);
        else if (r < 0)
                finish(rw, "failed", strerror(-r));
}

static const char *failure_kind(const json_t *result)
{
        const char *kind =
            json_string_value(json_object_get(json_object_get(result, "error"), "kind"));
        return kind ? kind : json_string_value(json_object_get(result, "status"));
}

static bool result_ok(const json_t *result)
{
        const char *status = json_string_value(json_object_get(result, "status"));

        return status && strcmp(status, "ok") == 0 &&
               json_number_value(json_object_get(result, "latency_us")) > 0;
}

static void on_expert(struct rewind *rw, json_t *result)
{
        char message[2048];

        if (!result_ok(result)) {
                const char *text =
                    json_string_value(json_object_get(json_object_get(result, "error"), "message"));
                snprintf(message, sizeof(message), "%s: the expert itself fails: %s: %s",
                         rw->manifest->dir, failure_kind(result) ?: "?",
                         text ? text : "no message");
                json_decref(result);
                finish(rw, "failed", message);
                return;
        }
        rw->reference = result;
        rw->fast_us = json_number_value(json_object_get(result, "latency_us"));
        rw->fast_identity = strdup(json_string_value(json_object_get(result, "identity")) ?: "");
        json_object_set_new(rw->summary, "expert_us", json_real(rw->fast_us));
        json_object_set_new(rw->summary, "expert_identity", json_string(rw->fast_identity ?: ""));
        advance(rw);
}

/* What on_candidate asks of its caller. */
enum next_step {
        STEP_ADVANCE, /* go on to the next candidate */
        STEP_ENDED,   /* the walk ended (rw is freed) */
        STEP_WAIT,    /* the distiller was asked; its answer goes on */
};

static bool distill_start(struct rewind *rw, const json_t *slow_result, double slow_us);
static void llm_count(struct rewind *rw, const char *name, json_int_t n);
static void on_inverse_built(struct rewind *rw, json_t *result);

/* Records a candidate's result. */
static enum next_step on_candidate(struct rewind *rw, const json_t *result, bool memo_hit)
{
        const struct motif *motif = rw->llm_candidate ? NULL : rw->motifs[rw->motif_i];
        const char *name = candidate_name(rw);
        const char *title = motif ? motif->title : "Undo an optimization the LLM found";
        const char *description = motif ? motif->description
                                  : rw->llm_note
                                      ? rw->llm_note
                                      : "A de-optimization proposed by the LLM inverse agent.";
        bool distilling;
        const char *status = json_string_value(json_object_get(result, "status"));
        double latency = json_number_value(json_object_get(result, "latency_us"));
        double limit = rw->fast_us * (1 + rw->options.threshold_pct / 100);
        char id[SHA256_HEX_SIZE];
        bool is_new = false;
        int r;

        bump(rw, memo_hit ? "memo_hits" : "evaluations");
        if (!result_ok(result)) {
                const char *kind = failure_kind(result) ?: "failed";
                count_failure(rw, name, kind);
                report(rw, status ? status : "?", kind, 0, memo_hit, false, false);
                return STEP_ADVANCE;
        }
        if (latency <= limit) {
                report(rw, status, "not_slower", latency, memo_hit, false, false);
                return STEP_ADVANCE;
        }
        if (!rw->final_pass && !rw->llm_candidate &&
            latency > rw->fast_us * rw->options.defer_gain) {
                /* taken now, this step would make every later one look negligible */
                json_object_set_new(rw->tried, rw->key, json_false());
                report(rw, status, "deferred", latency, memo_hit, false, false);
                return STEP_ADVANCE;
        }
        r = put_entry(rw, name, title, description, result, latency, id, &is_new);
        if (r < 0) {
                char message[256];
                snprintf(message, sizeof(message), "cannot write the experience entry: %s",
                         strerror(-r));
                finish(rw, "failed", message);
                return STEP_ENDED;
        }
        bump(rw, "kept");
        if (is_new)
                bump(rw, "new_entries");
        if (json_array_append_new(
                json_object_get(rw->summary, "steps"),
                json_pack(
                    "{s:s, s:s, s:s, s:i, s:f, s:f, s:f, s:s, s:b, s:s, s:s, s:s?}", "motif", name,
                    "site", rw->site.what, "file", rw->site.file, "line", rw->site.line,
                    "before_us", rw->fast_us, "after_us", latency, "gain", latency / rw->fast_us,
                    "entry", id, "new", is_new, "fast_identity", rw->fast_identity ?: "",
                    "slow_identity", json_string_value(json_object_get(result, "identity")) ?: "",
                    "bottleneck", json_string_value(json_object_get(result, "bottleneck")))) < 0) {
                finish(rw, "failed", "out of memory recording the step");
                return STEP_ENDED;
        }
        report(rw, status, "kept", latency, memo_hit, true, is_new);
        if (rw->llm_candidate)
                llm_count(rw, "inverse_kept", 1);
        /* the distiller sees both versions: ask before the slow one becomes current */
        memcpy(rw->distill_id, id, SHA256_HEX_SIZE);
        distilling = distill_start(rw, result, latency);
        /* go on from the slow version, starting the scan over */
        if (motif)
                rw->motif_kept[rw->motif_i] = true;
        version_release(&rw->fast);
        rw->fast = rw->slow;
        rw->slow.n = 0;
        rw->fast_us = latency;
        free(rw->fast_identity);
        rw->fast_identity = strdup(json_string_value(json_object_get(result, "identity")) ?: "");
        rw->motif_i = 0;
        rw->site_i = 0;
        return distilling ? STEP_WAIT : STEP_ADVANCE;
}

/* ------------------------------------------------------------ the LLM */

/* The summary's "llm", made on first use; NULL (logged) when out of memory. */
static json_t *llm_summary(struct rewind *rw)
{
        json_t *l = json_object_get(rw->summary, "llm");

        if (!l) {
                l = json_pack("{s:s?, s:[], s:i, s:i, s:i, s:i, s:i, s:{}}", "model", rw->llm_model,
                              "calls", "total_tokens", 0, "distilled", 0, "inverse_asked", 0,
                              "inverse_measured", 0, "inverse_kept", 0, "discarded");
                if (json_object_set_new(rw->summary, "llm", l) < 0) {
                        log_error("%s: cannot record the LLM's calls (out of memory)",
                                  rw->manifest->name);
                        return NULL;
                }
        }
        return l;
}

static void llm_count(struct rewind *rw, const char *name, json_int_t n)
{
        json_counter_add(llm_summary(rw), name, n);
}

/* Records a returned call; true when the walk was cancelled meanwhile (rw is then freed). */
static bool llm_returned(struct rewind *rw, const struct llm_result *result, const char *purpose,
                         const char *verdict)
{
        json_t *calls = json_object_get(llm_summary(rw), "calls");

        rw->llm_call = NULL;
        llm_count(rw, "total_tokens", result->tokens_charged);
        if (json_array_size(calls) < 2 * INVERSE_TRIES + 2 * (size_t)rw->options.max_steps &&
            json_array_append_new(calls,
                                  json_pack("{s:s, s:s, s:s, s:I, s:f, s:s?}", "purpose", purpose,
                                            "prompt_sha256", result->prompt_sha256, "outcome",
                                            llm_outcome_name(result->outcome), "tokens",
                                            (json_int_t)result->tokens_charged, "latency_s",
                                            result->latency_s, "verdict", verdict)) < 0)
                log_error("%s: cannot record the LLM call (out of memory): %s", rw->manifest->name,
                          purpose);
        if (result->outcome == LLM_BUDGET_EXHAUSTED)
                json_object_set_new(llm_summary(rw), "off",
                                    json_string("the walk's LLM token budget is spent"));
        if (rw->cancelled) {
                finish(rw, "cancelled", "cancelled by request");
                return true;
        }
        return false;
}

/* The last call's verdict: what became of its answer. */
static void llm_verdict(struct rewind *rw, const char *verdict)
{
        json_t *calls = json_object_get(llm_summary(rw), "calls");
        size_t n = json_array_size(calls);

        if (n)
                json_object_set_new(json_array_get(calls, n - 1), "verdict", json_string(verdict));
}

static bool llm_usable(struct rewind *rw)
{
        return rw->llm.client && !json_object_get(llm_summary(rw), "off");
}

static int llm_ask(struct rewind *rw, const char *template_name, const json_t *vars,
                   llm_done_fn done)
{
        char err[512] = "", *system = NULL, *user = NULL;
        int r = prompts_render(rw->llm_prompts_dir, template_name, vars, &system, &user, err,
                               sizeof(err));

        if (r < 0) {
                json_object_set_new(llm_summary(rw), "off", json_string(err));
                return r;
        }
        {
                const struct llm_message messages[] = { { "system", system }, { "user", user } };
                r = llm_chat(rw->llm.client, messages, 2, rw->llm_budget, done, rw, &rw->llm_call);
        }
        free(system);
        free(user);
        if (r == 0)
                rw->phase = PHASE_LLM;
        return r;
}

/* Whether every token of a bottleneck the distiller wrote is one the signatures use. */
static bool signature_is_valid(const char *bottleneck)
{
        char copy[512], *save = NULL, *token;
        bool any = false;

        if (!bottleneck || strlen(bottleneck) >= sizeof(copy))
                return false;
        snprintf(copy, sizeof(copy), "%s", bottleneck);
        for (token = strtok_r(copy, " \t\n", &save); token;
             token = strtok_r(NULL, " \t\n", &save)) {
                bool known = false;
                for (size_t i = 0; npu_signature_vocabulary[i] && !known; i++)
                        known = strcmp(npu_signature_vocabulary[i], token) == 0;
                if (!known)
                        return false;
                any = true;
        }
        return any;
}

/* Rewrites the kept entry with the distiller's words; the reason when it cannot. */
static const char *apply_distilled(struct rewind *rw, const char *content)
{
        char key[SHA256_HEX_SIZE + 16], *code = NULL;
        const char *title, *description, *bottleneck;
        json_t *answer = NULL, *entry = NULL;
        struct store_batch *b = NULL;
        const char *why = NULL;

        if (llm_extract_code_block(content, "json", &code) < 0) {
                why = "no_json_block";
                goto out;
        }
        answer = json_loads(code, 0, NULL);
        title = json_string_value(json_object_get(answer, "title"));
        description = json_string_value(json_object_get(answer, "description"));
        bottleneck = json_string_value(json_object_get(answer, "bottleneck"));
        if (!title || !*title || strlen(title) > 200 || !description || !*description) {
                why = "malformed_entry";
                goto out;
        }
        snprintf(key, sizeof(key), "entry/%s", rw->distill_id);
        b = store_batch_new(rw->store);
        if (!b || store_get_json(rw->store, STORE_EXPERIENCE, key, &entry) < 0) {
                why = "entry_gone";
                goto out;
        }
        json_object_set_new(entry, "title", json_string(title));
        json_object_set_new(entry, "description", json_string(description));
        /* a bottleneck outside the vocabulary would never match: keep the measured one */
        if (signature_is_valid(bottleneck))
                json_object_set_new(entry, "bottleneck", json_string(bottleneck));
        json_object_set_new(entry, "distilled_by",
                            json_string(rw->llm_model ? rw->llm_model : "llm"));
        if (store_batch_put_json(b, STORE_EXPERIENCE, key, entry) < 0 || store_batch_commit(b) < 0)
                why = "store_error";
out:
        store_batch_free(b);
        json_decref(entry);
        json_decref(answer);
        free(code);
        return why;
}

static void on_distilled(struct llm_call *call, const struct llm_result *result, void *userdata)
{
        struct rewind *rw = userdata;
        const char *why = result->outcome == LLM_OK ? apply_distilled(rw, result->content)
                                                    : llm_outcome_name(result->outcome);

        (void)call;
        if (llm_returned(rw, result, "distill", why ? why : "distilled"))
                return;
        llm_count(rw, why ? "distill_failed" : "distilled", 1);
        advance(rw);
}

static char *kernel_text(const struct rewind *rw, const struct version *v)
{
        const char *text = version_text(v, rw->manifest->kernel_source);

        return strdup(text ? text : "");
}

/* Asks the distiller to describe the kept step (rw->slow against rw->fast); false: not asked. */
static bool distill_start(struct rewind *rw, const json_t *slow_result, double slow_us)
{
        char *slow = NULL, *fast = NULL, *diff = NULL, *slow_profile = NULL, *fast_profile = NULL;
        char vocabulary[4096] = "";
        json_t *fast_result = NULL, *vars = NULL;
        bool asked = false;

        if (!llm_usable(rw))
                return false;
        for (size_t i = 0; npu_signature_vocabulary[i]; i++)
                if (strlen(vocabulary) + strlen(npu_signature_vocabulary[i]) + 2 <
                    sizeof(vocabulary)) {
                        strcat(vocabulary, npu_signature_vocabulary[i]);
                        strcat(vocabulary, " ");
                }
        if (rw->fast_identity)
                store_candidate_get(rw->store, rw->fast_identity, &fast_result);
        slow = kernel_text(rw, &rw->slow);
        fast = kernel_text(rw, &rw->fast);
        diff = diff_versions(&rw->slow, &rw->fast);
        slow_profile = prompts_profile_summary(slow_result);
        fast_profile = prompts_profile_summary(fast_result);
        vars =
            json_pack("{s:s, s:s?, s:s?, s:s?, s:s?, s:s?, s:f, s:f, s:s, s:s}", "operator",
                      rw->manifest->name, "slow_kernel", slow, "fast_kernel", fast, "diff", diff,
                      "slow_profile", slow_profile, "fast_profile", fast_profile, "slow_latency_us",
                      slow_us, "fast_latency_us", rw->fast_us, "slow_signature",
                      json_string_value(json_object_get(slow_result, "bottleneck")) ?: "",
                      "signature_vocabulary", vocabulary);
        asked = vars && llm_ask(rw, "rewind_distill.txt", vars, on_distilled) == 0;
        json_decref(vars);
        json_decref(fast_result);
        free(slow);
        free(fast);
        free(diff);
        free(slow_profile);
        free(fast_profile);
        return asked;
}

static void on_inverse_answer(struct llm_call *call, const struct llm_result *result,
                              void *userdata);

/* The inverse agent's turn: one more de-optimization of the current version; false: none. */
static bool inverse_start(struct rewind *rw)
{
        char applied[2048] = "", *facts, *kernel;
        json_t *vars, *step;
        size_t i;
        bool asked;

        if (!llm_usable(rw) ||
            json_integer_value(json_object_get(llm_summary(rw), "inverse_asked")) >=
                INVERSE_TRIES ||
            counter(rw, "kept") >= rw->options.max_steps ||
            counter(rw, "tries") >= rw->options.max_tries)
                return false;
        for (i = 0; i < rw->n_motifs; i++)
                snprintf(applied + strlen(applied), sizeof(applied) - strlen(applied), "- %s%s\n",
                         rw->motifs[i]->title, rw->motif_kept[i] ? " (applied)" : "");
        json_array_foreach(json_object_get(rw->summary, "steps"), i,
                           step) if (strcmp(json_string_value(json_object_get(step, "motif")) ?: "",
                                            LLM_INVERSE) == 0)
            snprintf(applied + strlen(applied), sizeof(applied) - strlen(applied),
                     "- %s (applied)\n", json_string_value(json_object_get(step, "site")) ?: "");
        facts = npu_evaluator_platform_facts(rw->evaluator);
        kernel = kernel_text(rw, &rw->fast);
        vars = json_pack("{s:s, s:s, s:s?, s:s}", "operator", rw->manifest->name, "platform_facts",
                         facts ? facts : "(unknown)", "kernel", kernel, "applied_motifs", applied);
        llm_count(rw, "inverse_asked", 1);
        asked = vars && llm_ask(rw, "rewind_inverse.txt", vars, on_inverse_answer) == 0;
        json_decref(vars);
        free(facts);
        free(kernel);
        return asked;
}

/* The inverse agent's step came to nothing: count why, and go on. */
static void inverse_discard(struct rewind *rw, const char *why)
{
        json_t *discarded = json_object_get(llm_summary(rw), "discarded");

        llm_verdict(rw, why);
        json_counter_add(discarded, why, 1);
        count_failure(rw, LLM_INVERSE, why);
        advance(rw);
}

static void on_inverse_answer(struct llm_call *call, const struct llm_result *result,
                              void *userdata)
{
        struct rewind *rw = userdata;
        const char *path = rw->manifest->kernel_source, *why = NULL, *before;
        struct npu_request req = { .manifest = rw->manifest,
                                   .seed = rw->options.seed,
                                   .build_only = true };
        char *code = NULL;
        int r;

        (void)call;
        if (llm_returned(rw, result, "inverse", NULL))
                return;
        if (result->outcome != LLM_OK)
                why = llm_outcome_name(result->outcome);
        else if (llm_extract_code_block(result->content, "cpp", &code) < 0)
                why = "no_code_block";
        else if ((before = version_text(&rw->fast, path)) && strcmp(before, code) == 0)
                why = "unchanged";
        if (why) {
                free(code);
                inverse_discard(rw, why);
                return;
        }
        free(rw->llm_note);
        rw->llm_note = prompts_answer_note(result->content);
        r = version_copy(&rw->slow, &rw->fast);
        if (r == 0)
                r = version_set(&rw->slow, path, code);
        free(code);
        if (r < 0) {
                inverse_discard(rw, "infra_error");
                return;
        }
        memset(&rw->site, 0, sizeof(rw->site));
        snprintf(rw->site.file, sizeof(rw->site.file), "%s", path);
        snprintf(rw->site.what, sizeof(rw->site.what), "%.180s",
                 rw->llm_note ? rw->llm_note : "a de-optimization by the LLM");
        set_overrides(rw, &rw->slow);
        req.overrides = rw->overrides;
        req.n_overrides = rw->n_overrides;
        rw->phase = PHASE_LLM_BUILD;
        r = npu_evaluate(rw->evaluator, &req, on_evaluated, rw, &rw->in_flight);
        if (r < 0)
                inverse_discard(rw, "infra_error");
}

/* The inverse agent's kernel was built: measure it as a step, or discard it. */
static void on_inverse_built(struct rewind *rw, json_t *result)
{
        const char *status = json_string_value(json_object_get(result, "status"));
        bool built = status && strcmp(status, "ok") == 0;

        json_decref(result);
        if (!built) {
                inverse_discard(rw, "does_not_compile");
                return;
        }
        rw->llm_candidate = true;
        snprintf(rw->key, sizeof(rw->key), "%s|%d", LLM_INVERSE, counter(rw, "tries"));
        bump(rw, "tries");
        llm_count(rw, "inverse_measured", 1);
        rw->phase = PHASE_CANDIDATE;
        if (evaluate(rw, &rw->slow, rw->reference, false) < 0)
                finish(rw, "failed", "cannot start the inverse agent's candidate");
}

static void on_evaluated(json_t *result, bool memo_hit, void *userdata)
{
        struct rewind *rw = userdata;

        rw->in_flight = NULL;
        if (rw->cancelled && rw->phase != PHASE_DONE) {
                json_decref(result);
                finish(rw, "cancelled", "cancelled by request");
                return;
        }
        switch (rw->phase) {
        case PHASE_EXPERT:
                on_expert(rw, result);
                return;
        case PHASE_CANDIDATE:
                if (on_candidate(rw, result, memo_hit) == STEP_ADVANCE)
                        advance(rw);
                json_decref(result);
                return;
        case PHASE_LLM_BUILD:
                on_inverse_built(rw, result);
                return;
        case PHASE_LLM:
        case PHASE_DONE:
                json_decref(result);
                return;
        }
}

void rewind_cancel(struct rewind *rw)
{
        if (rw)
                rw->cancelled = true;
}

int rewind_start(struct npu_evaluator *evaluator, struct store *store, const char *opdir,
                 const struct rewind_options *options, rewind_progress_fn progress,
                 rewind_done_fn done, void *userdata, struct rewind **ret_rewind, char *err,
                 size_t err_size)
{
        struct rewind *rw;
        int r;

        if (!evaluator || !store || !opdir || !done)
                return -EINVAL;
        if (!rewind_has_expert(opdir)) {
                snprintf(err, err_size, "%s: no expert/op_kernel to rewind from", opdir);
                return -ENOENT;
        }
        rw = calloc(1, sizeof(*rw));
        if (!rw)
                return -ENOMEM;
        rw->evaluator = evaluator;
        rw->store = store;
        if (options)
                rw->options = *options;
        if (rw->options.threshold_pct <= 0)
                rw->options.threshold_pct = REWIND_DEFAULT_THRESHOLD_PCT;
        if (rw->options.max_steps <= 0)
                rw->options.max_steps = REWIND_DEFAULT_MAX_STEPS;
        if (rw->options.max_tries <= 0)
                rw->options.max_tries = REWIND_DEFAULT_MAX_TRIES;
        if (rw->options.seed == 0)
                rw->options.seed = 1;
        if (rw->options.defer_gain <= 0)
                rw->options.defer_gain = REWIND_DEFAULT_DEFER_GAIN;
        rw->progress = progress;
        rw->done = done;
        rw->userdata = userdata;
        rw->options.llm = NULL;
        if (options && options->llm && options->llm->client) {
                rw->llm = *options->llm;
                rw->llm_prompts_dir =
                    options->llm->prompts_dir ? strdup(options->llm->prompts_dir) : NULL;
                rw->llm_model = options->llm->model ? strdup(options->llm->model) : NULL;
                rw->llm.prompts_dir = rw->llm_prompts_dir;
                rw->llm.model = rw->llm_model;
                rw->llm.embedding_model = NULL;
                rw->llm_budget =
                    llm_budget_new(options->llm->token_budget > 0 ? options->llm->token_budget : 0);
                if (!rw->llm_budget) {
                        r = -ENOMEM;
                        goto fail;
                }
        }
        rw->n_motifs = rw->options.motifs ? rw->options.n_motifs : motif_count();
        rw->motifs = calloc(rw->n_motifs ? rw->n_motifs : 1, sizeof(*rw->motifs));
        rw->motif_kept = calloc(rw->n_motifs ? rw->n_motifs : 1, sizeof(*rw->motif_kept));
        rw->tried = json_object();
        if (!rw->motifs || !rw->motif_kept || !rw->tried) {
                r = -ENOMEM;
                goto fail;
        }
        for (size_t i = 0; i < rw->n_motifs; i++) {
                rw->motifs[i] = rw->options.motifs ? rw->options.motifs[i] : motif_at(i);
                if (!rw->motifs[i] || !rw->motifs[i]->inverse) {
                        snprintf(err, err_size, "motif %zu has no inverse", i);
                        r = -EINVAL;
                        goto fail;
                }
        }
        rw->options.motifs = NULL; /* borrowed; copied above */
        r = npu_manifest_load(opdir, &rw->manifest, err, err_size);
        if (r < 0)
                goto fail;
        r = load_expert(rw, err, err_size);
        if (r < 0)
                goto fail;
        rw->summary = json_pack("{s:s, s:s, s:i, s:f, s:i, s:i, s:i, s:i, s:i, s:i, s:o, s:o, "
                                "s:o}",
                                "operator", rw->manifest->name, "dir", rw->manifest->dir, "level",
                                rw->manifest->level, "threshold_pct", rw->options.threshold_pct,
                                "max_steps", rw->options.max_steps, "tries", 0, "evaluations", 0,
                                "memo_hits", 0, "kept", 0, "new_entries", 0, "steps", json_array(),
                                "tried", json_array(), "failures", json_object());
        if (!rw->summary) {
                r = -ENOMEM;
                goto fail;
        }
        rw->phase = PHASE_EXPERT;
        r = evaluate(rw, &rw->fast, NULL, true);
        if (r < 0) {
                snprintf(err, err_size, "%s: cannot start the expert's evaluation: %s",
                         rw->manifest->dir, strerror(-r));
                goto fail;
        }
        if (ret_rewind)
                *ret_rewind = rw;
        return 0;
fail:
        rewind_free(rw);
        return r;
}
