/* SPDX-License-Identifier: MIT */
/*
 * Genes only where a choice is (issue #26), the episode's part: after the
 * baseline, the host code's coverage over the manifest's cases
 * (npu_host_coverage) says which genes lie in code no case runs (a branch
 * only an unchecked dtype takes), and those are held as written like a
 * gene a rewrite took away: never searched, never written.  The decisions
 * are kept in the record under the baseline's identity, so a resumed
 * episode does not compute them again.  Also the record's "literals" (every
 * literal the gene finder looked at, and why it was or was not taken) and
 * the guard that refuses a candidate changing a frozen literal before it
 * costs an evaluation (a structural move or an LLM's rewrite could;
 * optimizer/episode-frozen.c judges the texts).
 */
#include "episode-internal.h"

#include "common/common.h"
#include "cxx/cxx.h"
#include "npu/npu.h"
#include "store/store.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NOT_EXECUTED "not executed by any case"

/* ------------------------------------------------------------ the record */

json_t *episode_literals_json(const struct episode *ep)
{
        json_t *list = json_array();

        for (size_t i = 0; list && i < ep->literals.n; i++) {
                const struct gene_literal *l = &ep->literals.items[i];
                if (json_array_append_new(list, json_pack("{s:s, s:i, s:s, s:I, s:b, s:b, s:s}",
                                                          "file", l->file, "line", l->line, "name",
                                                          l->name, "value", (json_int_t)l->value,
                                                          "taken", l->taken, "frozen", l->frozen,
                                                          "why", l->why)) < 0) {
                        json_decref(list);
                        return NULL;
                }
        }
        return list;
}

void episode_record_literals(struct episode *ep)
{
        json_t *list = episode_literals_json(ep);

        if (json_object_set_new(ep->record, "literals", list) < 0)
                log_msg(LOG_ERR, ep->options.log_context,
                        "cannot record the literals looked at (out of memory)");
        if (ep->literals.more)
                json_object_set_new(ep->record, "literals_more",
                                    json_integer((json_int_t)ep->literals.more));
}

/* The key a gene has in genomes and in the coverage's decisions: file:line:name. */
static void gene_key(const struct gene *g, char *buf, size_t size)
{
        snprintf(buf, size, "%s:%u:%s", g->file, g->line, g->name);
}

/* The literal the gene was found as; NULL past GENE_LITERALS_MAX. */
static struct gene_literal *literal_of(struct episode *ep, const struct gene *g)
{
        for (size_t i = 0; i < ep->literals.n; i++) {
                struct gene_literal *l = &ep->literals.items[i];
                if (l->start == g->start && strcmp(l->file, g->file) == 0)
                        return l;
        }
        return NULL;
}

/* Holds gene g as written from now on and says why in its literal. */
static void freeze_gene(struct episode *ep, size_t g)
{
        struct gene_literal *l = literal_of(ep, &ep->genes[g]);

        ep->lost[g] = true;
        ep->best_values[g] = ep->genes[g].value;
        if (l) {
                l->taken = false;
                l->frozen = true;
                snprintf(l->why, sizeof(l->why), "%s", NOT_EXECUTED);
        }
}

/* ------------------------------------------------------------ which genes run */

enum line_state { LINE_UNKNOWN, LINE_NOT_RUN, LINE_RAN };

static bool lists(const json_t *lines, unsigned line)
{
        size_t i;
        json_t *v;

        json_array_foreach(lines, i, v) if (json_integer_value(v) == (json_int_t)line) return true;
        return false;
}

/* What the coverage says of one line: no code there (or no file) is unknown. */
static enum line_state line_state(const json_t *coverage, const char *file, unsigned line)
{
        const json_t *f = json_object_get(coverage, file);

        if (lists(json_object_get(f, "ran"), line))
                return LINE_RAN;
        if (lists(json_object_get(f, "not_ran"), line))
                return LINE_NOT_RUN;
        return LINE_UNKNOWN;
}

/* The operator's sources, tokenized once for the look-ups of names. */
struct parsed {
        struct token_list lists[MAX_OP_FILES];
        bool ok[MAX_OP_FILES];
};

/*
 * Whether gene g runs in some case.  On a line that holds code the
 * coverage says it; a constant's definition holds none, so its uses do:
 * it runs when one of them ran, or when one is somewhere the coverage
 * cannot see (the kernel, another definition); it does not when every use
 * is code no case ran, or there is no use at all.
 */
static bool gene_runs(struct episode *ep, const json_t *coverage, const struct parsed *p,
                      const struct gene *g)
{
        size_t name_len = strlen(g->name);
        enum line_state own = line_state(coverage, g->file, g->line);
        unsigned marker_line;

        if (own != LINE_UNKNOWN)
                return own == LINE_RAN;
        /* a marked literal out of a knob's place is named for its line, not a name */
        if (sscanf(g->name, "line%u", &marker_line) == 1)
                return true;
        for (size_t i = 0; i < ep->n_files; i++) {
                const struct op_file *f = &ep->files[i];
                const struct token_list *l = &p->lists[i];
                if (!f->is_source)
                        continue;
                if (!p->ok[i])
                        return true; /* unreadable: assume it runs */
                for (size_t t = 0; t < l->n; t++) {
                        const struct token *tok = &l->tokens[t];
                        enum line_state s;
                        if (tok->kind != TOKEN_IDENTIFIER || tok->len != name_len ||
                            memcmp(l->text + tok->start, g->name, name_len) != 0 ||
                            (tok->line == g->line && strcmp(f->path, g->file) == 0))
                                continue;
                        if (strncmp(f->path, "op_host/", 8) != 0)
                                return true; /* the kernel's, or another folder's */
                        s = line_state(coverage, f->path, tok->line);
                        if (s != LINE_NOT_RUN)
                                return true;
                }
        }
        /* every use lies in code no case ran, or there is none: nothing that runs reads it */
        return false;
}

/* Freezes every gene no case runs; their keys into not_executed (may be NULL). */
static size_t freeze_unexecuted(struct episode *ep, const json_t *coverage, json_t *not_executed)
{
        struct parsed *p = calloc(1, sizeof(*p));
        size_t frozen = 0;

        if (!p)
                return 0; /* out of memory: every gene kept */
        for (size_t i = 0; i < ep->n_files; i++) {
                unsigned bad_line;
                p->ok[i] =
                    ep->files[i].is_source && tokenize(ep->files[i].disk, strlen(ep->files[i].disk),
                                                       &p->lists[i], &bad_line) == 0;
        }
        for (size_t g = 0; g < ep->n_genes; g++) {
                char key[300];
                if (episode_is_move_gene(&ep->genes[g]) || ep->lost[g] ||
                    gene_runs(ep, coverage, p, &ep->genes[g]))
                        continue;
                freeze_gene(ep, g);
                frozen++;
                gene_key(&ep->genes[g], key, sizeof(key));
                if (not_executed)
                        json_array_append_new(not_executed, json_string(key));
        }
        for (size_t i = 0; i < ep->n_files; i++)
                if (p->ok[i])
                        token_list_release(&p->lists[i]);
        free(p);
        return frozen;
}

/* Freezes the genes a cached decision names; how many. */
static size_t freeze_cached(struct episode *ep, const json_t *not_executed)
{
        size_t frozen = 0;

        for (size_t g = 0; g < ep->n_genes; g++) {
                char key[300];
                size_t i;
                json_t *v;
                if (episode_is_move_gene(&ep->genes[g]))
                        continue;
                gene_key(&ep->genes[g], key, sizeof(key));
                json_array_foreach(not_executed, i, v)
                {
                        if (strcmp(json_string_value(v) ?: "", key) != 0)
                                continue;
                        freeze_gene(ep, g);
                        frozen++;
                        break;
                }
        }
        return frozen;
}

/* Whether any gene has a file: only those the coverage can say anything of. */
static bool has_file_genes(const struct episode *ep)
{
        for (size_t g = 0; g < ep->n_genes; g++)
                if (!episode_is_move_gene(&ep->genes[g]) && !ep->lost[g])
                        return true;
        return false;
}

/* Records the outcome under the baseline's identity and goes on to the search. */
/* The genes are settled: the dtype gate's setup next, then the search. */
static void setup_done(struct episode *ep)
{
        if (!episode_dtypes_begin(ep))
                episode_next_candidate(ep);
}

static void coverage_done(struct episode *ep, json_t *entry, size_t frozen)
{
        const char *status = json_string_value(json_object_get(entry, "status"));

        json_object_set_new(entry, "frozen", json_integer((json_int_t)frozen));
        if (json_object_set_new(ep->record, "host_coverage", entry) < 0)
                log_msg(LOG_ERR, ep->options.log_context,
                        "cannot record the host code's coverage (out of memory)");
        if (frozen)
                log_msg(LOG_INFO, ep->options.log_context,
                        "%zu gene%s in host code no case runs: held as written", frozen,
                        frozen == 1 ? "" : "s");
        else if (status && strcmp(status, "ok") != 0)
                log_msg(LOG_NOTICE, ep->options.log_context,
                        "every gene kept: the host code's coverage is unknown (%s)",
                        json_string_value(json_object_get(entry, "message")) ?: status);
        episode_record_literals(ep);
        if (episode_persist(ep) < 0)
                log_msg(LOG_ERR, ep->options.log_context, "cannot record the coverage: %s",
                        store_last_error(ep->store));
        setup_done(ep);
}

void episode_coverage_start(struct episode *ep)
{
        const char *identity = json_string_value(json_object_get(ep->baseline, "identity"));
        const json_t *cached = json_object_get(ep->record, "host_coverage");
        json_t *entry;
        int r;

        if (cached && identity &&
            strcmp(json_string_value(json_object_get(cached, "identity")) ?: "", identity) == 0) {
                /* a resumed episode: the same baseline, decided before */
                entry = json_deep_copy(cached);
                coverage_done(ep, entry ? entry : json_object(),
                              freeze_cached(ep, json_object_get(cached, "not_executed")));
                return;
        }
        if (!has_file_genes(ep) || !episode_uses_stage1(ep)) {
                setup_done(ep);
                return;
        }
        r = npu_host_coverage(ep->evaluator, ep->manifest, episode_on_evaluated, ep,
                              &ep->in_flight);
        if (r == 0) {
                ep->phase = PHASE_COVERAGE;
                return;
        }
        entry = json_pack("{s:s?, s:s, s:s}", "identity", identity, "status", "skipped", "message",
                          r == -ENOTSUP ? "no simulator to run the host code on" : strerror(-r));
        coverage_done(ep, entry ? entry : json_object(), 0);
}

void episode_on_coverage(struct episode *ep, json_t *result)
{
        const char *identity = json_string_value(json_object_get(ep->baseline, "identity"));
        const char *status = json_string_value(json_object_get(result, "status"));
        json_t *entry, *not_executed = json_array();
        size_t frozen = 0;

        ep->phase = PHASE_SEARCH;
        if (status && strcmp(status, "ok") == 0) {
                frozen = freeze_unexecuted(ep, json_object_get(result, "coverage"), not_executed);
                entry = json_pack("{s:s?, s:s, s:O}", "identity", identity, "status", "ok",
                                  "not_executed", not_executed);
        } else {
                /* never fatal: the search goes on over every gene */
                entry = json_pack(
                    "{s:s?, s:s, s:s}", "identity", identity, "status", "failed", "message",
                    json_string_value(json_object_get(json_object_get(result, "error"), "message"))
                        ?: "no message");
        }
        json_decref(not_executed);
        json_decref(result);
        coverage_done(ep, entry ? entry : json_object(), frozen);
}

/* ------------------------------------------------------------ the guard */

bool episode_changes_frozen(struct episode *ep, char *why, size_t why_size)
{
        for (size_t i = 0; i < ep->literals.n; i++) {
                const struct gene_literal *l = &ep->literals.items[i];
                const struct op_file *f;
                const char *text;
                if (!l->frozen || !(f = episode_file_named(ep, l->file)))
                        continue;
                text = f->cand ? f->cand : f->best;
                if (strcmp(text, f->disk) == 0 || episode_literal_kept(f->disk, l->start, text))
                        continue;
                snprintf(why, why_size, "%s:%u: %s = %lld (%s) would change", l->file, l->line,
                         l->name, (long long)l->value, l->why);
                return true;
        }
        return false;
}
