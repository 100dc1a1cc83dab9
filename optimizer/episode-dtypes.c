/* SPDX-License-Identifier: MIT */
/*
 * The dtype gate (issue #26): a manifest runs one dtype per tensor, but the
 * OpDef may register more, and a tiling constant that only another dtype
 * needs can be tuned away unseen.  After the baseline, the OpDef is read by
 * running the host code on the simulator, and the original runs the small
 * cases of every other dtype combination it registers, its outputs kept.
 * Before a candidate becomes a best (after its confirmation, or as a memo
 * hit) it runs the same cases on the same seed against those outputs; one
 * it fails, or answers differently, where the original passes rejects it
 * as dtype_regression.  The gate's runs belong to the candidate's
 * evaluation: they cost no budget, and are memoized by the candidate and
 * the variant's manifest, so a resumed episode does not run them again.
 */
#include "episode-internal.h"

#include "common/common.h"
#include "npu/npu.h"
#include "store/store.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Every combination at once, when none is checked. */
#define ALL_OTHERS "every combination but the manifest's"

/* One dtype combination of the OpDef other than the manifest's. */
struct gate_variant {
        struct npu_dtype_variant v;
        char *text;        /* its manifest as the candidate's ascendopt.json */
        json_t *reference; /* the baseline's result on it, outputs kept; NULL: it fails there */
};

struct dtype_gate {
        struct episode *ep; /* NULL once the episode is gone (a describe still runs) */
        struct npu_describe_job *describe; /* in flight */
        struct gate_variant variants[NPU_MAX_DTYPE_VARIANTS];
        size_t n;
        size_t next;             /* the variant being run */
        json_t *candidate;       /* the would-be best being checked */
        bool candidate_memo_hit; /* it came from the memo */
        struct npu_override overrides[MAX_OP_FILES + 1];
};

static void gate_free(struct dtype_gate *g)
{
        if (!g)
                return;
        for (size_t i = 0; i < g->n; i++) {
                if (g->variants[i].reference)
                        rm_rf(json_string_value(
                            json_object_get(g->variants[i].reference, "scratch_dir")));
                json_decref(g->variants[i].reference);
                free(g->variants[i].text);
                npu_dtype_variants_release(&g->variants[i].v, 1);
        }
        json_decref(g->candidate);
        free(g);
}

void episode_dtypes_free(struct episode *ep)
{
        struct dtype_gate *g = ep->dtypes;

        ep->dtypes = NULL;
        if (g && g->describe) {
                /* its callback frees the gate */
                g->ep = NULL;
                npu_describe_job_cancel(g->describe);
                return;
        }
        gate_free(g);
}

bool episode_dtypes_cancel(struct episode *ep)
{
        if (!ep->dtypes || !ep->dtypes->describe)
                return false;
        npu_describe_job_cancel(ep->dtypes->describe);
        return true;
}

/* The record's "dtypes", made on first use; NULL when out of memory (logged). */
static json_t *dtypes_record(struct episode *ep)
{
        json_t *d = json_object_get(ep->record, "dtypes");

        if (d)
                return d;
        d = json_pack("{s:[], s:[], s:[]}", "checked", "not_checkable", "baseline_fails");
        if (json_object_set_new(ep->record, "dtypes", d) < 0) {
                log_msg(LOG_ERR, ep->options.log_context,
                        "cannot record the dtypes checked (out of memory)");
                return NULL;
        }
        return d;
}

static void note(struct episode *ep, const char *list, json_t *item)
{
        json_t *d = dtypes_record(ep);

        if (!d || json_array_append_new(json_object_get(d, list), item) < 0)
                log_msg(LOG_ERR, ep->options.log_context,
                        "cannot record the dtypes %s (out of memory)", list);
}

/* Nothing beyond the manifest's dtypes is checked, and why. */
static void not_checked(struct episode *ep, const char *why)
{
        log_msg(LOG_NOTICE, ep->options.log_context, "only the manifest's dtypes are checked: %s",
                why);
        note(ep, "not_checkable", json_pack("{s:s, s:s}", "dtypes", ALL_OTHERS, "why", why));
}

/* The gate's work is done (or there is none): the search goes on. */
static void search_on(struct episode *ep)
{
        if (episode_persist(ep) < 0)
                log_msg(LOG_ERR, ep->options.log_context, "cannot record the dtypes checked: %s",
                        store_last_error(ep->store));
        episode_next_candidate(ep);
}

/* Evaluates variant i: the baseline (reference NULL, outputs kept) or the candidate. */
static int run_variant(struct episode *ep, size_t i, bool candidate)
{
        struct dtype_gate *g = ep->dtypes;
        size_t n = 0;

        if (candidate)
                for (; n < ep->n_overrides; n++)
                        g->overrides[n] = ep->overrides[n];
        g->overrides[n++] =
            (struct npu_override){ .path = "ascendopt.json", .text = g->variants[i].text };
        struct npu_request req = {
                .manifest = ep->manifest,
                .overrides = g->overrides,
                .n_overrides = n,
                .seed = ep->options.seed,
                .reference = candidate ? g->variants[i].reference : NULL,
                .keep_outputs = !candidate,
                /* the reference is run each time, never served: a memo hit has no outputs */
                .skip_bench = !candidate,
                .device = ep->options.device,
        };
        g->next = i;
        return npu_evaluate(ep->evaluator, &req, episode_on_evaluated, ep, &ep->in_flight);
}

/* The next variant the baseline runs, from i on; the search goes on after the last. */
static void run_baselines_from(struct episode *ep, size_t i)
{
        struct dtype_gate *g = ep->dtypes;

        if (i >= g->n) {
                size_t checked = json_array_size(json_object_get(dtypes_record(ep), "checked"));
                if (checked)
                        log_msg(LOG_INFO, ep->options.log_context,
                                "a new best must also pass %zu other dtype combination%s that the "
                                "original passes",
                                checked, checked == 1 ? "" : "s");
                search_on(ep);
                return;
        }
        log_msg(LOG_INFO, ep->options.log_context,
                "running the original on dtypes %s (%zu of %zu), its small cases",
                g->variants[i].v.label, i + 1, g->n);
        if (run_variant(ep, i, false) < 0)
                episode_finish(ep, "failed", "infra_error",
                               "cannot start the original on another dtype combination");
}

static void on_described(json_t *description, const char *error, void *userdata)
{
        struct dtype_gate *g = userdata;
        struct episode *ep = g->ep;
        struct npu_dtype_variant variants[NPU_MAX_DTYPE_VARIANTS];
        char *own = NULL, why[2300];
        json_t *list = NULL, *item;
        size_t n = 0, i;
        int r;

        g->describe = NULL;
        if (!ep) {
                json_decref(description);
                gate_free(g);
                return;
        }
        if (episode_interrupted(ep)) {
                json_decref(description);
                return;
        }
        if (!description) {
                snprintf(why, sizeof(why), "the OpDef could not be read: %s", error);
                json_decref(description);
                not_checked(ep, why);
                search_on(ep);
                return;
        }
        list = json_array();
        own = npu_manifest_dtype_label(ep->manifest);
        r = list && own ? npu_manifest_dtype_variants(ep->manifest, description, variants,
                                                      NPU_MAX_DTYPE_VARIANTS, &n, list)
                        : -ENOMEM;
        json_decref(description);
        if (r == 0 && own)
                json_object_set_new(dtypes_record(ep), "manifest", json_string(own));
        json_array_foreach(list, i, item)
        {
                note(ep, "not_checkable", json_incref(item));
        }
        for (i = 0; r == 0 && i < n; i++) {
                struct gate_variant *v = &g->variants[g->n];
                v->v = variants[i];
                variants[i] = (struct npu_dtype_variant){ 0 };
                g->n++;
                v->text = json_dumps(v->v.doc, JSON_INDENT(2) | JSON_SORT_KEYS);
                if (!v->text)
                        r = -ENOMEM;
        }
        npu_dtype_variants_release(variants, n);
        json_decref(list);
        free(own);
        if (r < 0) {
                episode_finish(ep, "failed", "infra_error",
                               "out of memory listing the OpDef's dtype combinations");
                return;
        }
        if (!g->n && !json_array_size(json_object_get(dtypes_record(ep), "not_checkable")))
                log_msg(LOG_INFO, ep->options.log_context,
                        "the OpDef registers no dtype combination beyond the manifest's");
        run_baselines_from(ep, 0);
}

bool episode_dtypes_begin(struct episode *ep)
{
        struct dtype_gate *g;
        char why[512];
        int r;

        /* a resumed record's list is of the run before */
        json_object_del(ep->record, "dtypes");
        episode_dtypes_free(ep);
        g = calloc(1, sizeof(*g));
        if (!g) {
                not_checked(ep, "out of memory");
                return false;
        }
        g->ep = ep;
        ep->dtypes = g;
        r = npu_evaluator_describe(ep->evaluator, ep->manifest, on_described, g, &g->describe);
        if (r == -EOPNOTSUPP) {
                not_checked(ep, "the OpDef's other dtype combinations are checked on the simulated "
                                "NPU only; this backend runs the manifest's");
                return false;
        }
        if (r < 0) {
                snprintf(why, sizeof(why), "cannot read the OpDef: %s", strerror(-r));
                not_checked(ep, why);
                return false;
        }
        ep->phase = PHASE_DTYPES;
        return true;
}

/* The next variant the baseline passes, from i on; g->n when none is left. */
static size_t next_checked(const struct dtype_gate *g, size_t i)
{
        while (i < g->n && !g->variants[i].reference)
                i++;
        return i;
}

bool episode_dtypes_gate(struct episode *ep, json_t *result, bool memo_hit)
{
        struct dtype_gate *g = ep->dtypes;
        size_t first = g ? next_checked(g, 0) : 0;

        if (!g || first >= g->n)
                return false;
        g->candidate = result;
        g->candidate_memo_hit = memo_hit;
        ep->phase = PHASE_GATE;
        if (run_variant(ep, first, true) < 0)
                episode_finish(ep, "failed", "infra_error",
                               "cannot start a candidate on another dtype combination");
        return true;
}

/* The baseline's run of variant g->next came back. */
static void on_baseline_variant(struct episode *ep, json_t *result)
{
        struct dtype_gate *g = ep->dtypes;
        struct gate_variant *v = &g->variants[g->next];
        const char *status = json_string_value(json_object_get(result, "status")) ?: "failed";
        const json_t *error = json_object_get(result, "error");
        const char *kind = json_string_value(json_object_get(error, "kind")) ?: status;
        const char *message = json_string_value(json_object_get(error, "message")) ?: "";
        char why[1500];

        if (strcmp(status, "ok") == 0) {
                v->reference = result;
                note(ep, "checked", json_string(v->v.label));
                run_baselines_from(ep, g->next + 1);
                return;
        }
        if (strcmp(status, "infra_error") == 0) {
                snprintf(why, sizeof(why), "the original could not be run on it: %s", message);
                note(ep, "not_checkable",
                     json_pack("{s:s, s:s}", "dtypes", v->v.label, "why", why));
        } else {
                log_msg(LOG_INFO, ep->options.log_context,
                        "the original fails on dtypes %s (%s), so they are not checked", v->v.label,
                        kind);
                note(ep, "baseline_fails",
                     json_pack("{s:s, s:s, s:s}", "dtypes", v->v.label, "status", kind, "message",
                               message));
        }
        rm_rf(json_string_value(json_object_get(result, "scratch_dir")));
        json_decref(result);
        run_baselines_from(ep, g->next + 1);
}

/* The candidate's run of variant g->next came back. */
static void on_candidate_variant(struct episode *ep, json_t *result)
{
        struct dtype_gate *g = ep->dtypes;
        struct gate_variant *v = &g->variants[g->next];
        const char *status = json_string_value(json_object_get(result, "status")) ?: "failed";
        const json_t *error = json_object_get(result, "error");
        const char *kind = json_string_value(json_object_get(error, "kind")) ?: status;
        const char *message = json_string_value(json_object_get(error, "message")) ?: "";
        json_t *candidate = g->candidate;
        bool memo_hit = g->candidate_memo_hit;
        size_t next = next_checked(g, g->next + 1);
        char why[2048];

        if (strcmp(status, "ok") == 0 && next < g->n) {
                json_decref(result);
                if (run_variant(ep, next, true) < 0)
                        episode_finish(ep, "failed", "infra_error",
                                       "cannot start a candidate on another dtype combination");
                return;
        }
        g->candidate = NULL;
        if (strcmp(status, "infra_error") == 0) {
                /* says nothing about the candidate, which cannot be taken unchecked */
                log_msg(LOG_WARNING, ep->options.log_context,
                        "infrastructure error checking dtypes %s, candidate skipped: %s",
                        v->v.label, message);
                json_decref(result);
                json_decref(candidate);
                episode_clear_candidate(ep);
                episode_next_candidate(ep);
                return;
        }
        if (strcmp(status, "ok") != 0) {
                snprintf(why, sizeof(why), "%s fails with %s where the original passes%s%s",
                         v->v.label, kind, *message ? ": " : "", message);
                log_msg(LOG_INFO, ep->options.log_context, "would-be best rejected: %s", why);
                json_object_set_new(candidate, "status", json_string("dtype_regression"));
                json_object_set_new(
                    candidate, "error",
                    json_pack("{s:s, s:s}", "kind", "dtype_regression", "message", why));
                json_object_set_new(candidate, "dtype_regression",
                                    json_pack("{s:s, s:s, s:s}", "dtypes", v->v.label, "status",
                                              kind, "message", message));
        }
        json_decref(result);
        episode_record_checked(ep, candidate, memo_hit);
}

void episode_dtypes_on_evaluated(struct episode *ep, json_t *result, bool memo_hit)
{
        (void)memo_hit;
        if (ep->phase == PHASE_DTYPES)
                on_baseline_variant(ep, result);
        else
                on_candidate_variant(ep, result);
}
