/* SPDX-License-Identifier: MIT */
/*
 * Stage I's memory of failures (wrong answers, crashes, UB overflows):
 * the constraints a gene's values must keep (divide a dimension, be a
 * multiple of an alignment, stay under or over a bound, not be a move's
 * site), learnt from the failures blamed on that gene and checked against
 * every genome that passed.  Pure computation over values; search.h says
 * what is learnt and when.
 */
#include "search-internal.h"

#include <stdio.h>
#include <string.h>

/* Probe values on a gene's scale, for which hypothesis allows more than another. */
#define PROBES_ALL_UP_TO 2048
#define PROBES_SAMPLED   1024
#define PROBES_MAX       (PROBES_SAMPLED + 4 * 64)
#define HYPOTHESES_MAX   (SEARCH_FACTS_MAX + 64 + 3)

static const char *const kind_names[] = {
        [CONSTRAINT_DIVIDES] = "divides", [CONSTRAINT_MULTIPLE_OF] = "multiple_of",
        [CONSTRAINT_MAX] = "max",         [CONSTRAINT_MIN] = "min",
        [CONSTRAINT_NOT] = "not",         [CONSTRAINT_ONLY] = "only",
};

const char *search_constraint_kind_name(enum search_constraint_kind kind)
{
        return (size_t)kind < sizeof(kind_names) / sizeof(kind_names[0]) ? kind_names[kind] : "?";
}

static bool rule_allows(const struct search_constraint_rule *r, int64_t v)
{
        switch (r->kind) {
        case CONSTRAINT_DIVIDES:
                return v > 0 && r->n % v == 0;
        case CONSTRAINT_MULTIPLE_OF:
                return r->n > 0 && v % r->n == 0;
        case CONSTRAINT_MAX:
                return v <= r->n;
        case CONSTRAINT_MIN:
                return v >= r->n;
        case CONSTRAINT_NOT:
                return v != r->n;
        case CONSTRAINT_ONLY:
                return v == r->n;
        }
        return true;
}

bool search_constraint_allows(const struct search_constraint *c, int64_t v)
{
        for (size_t i = 0; i < c->n_any; i++)
                if (rule_allows(&c->any[i], v))
                        return true;
        return c->n_any == 0;
}

/* The step of an ordered scale's grid at v: the next value up is v + step_at(v). */
static int64_t step_at(const struct gene *g, int64_t v)
{
        if (g->scale == GENE_POW2)
                return v > 0 ? v : 1;
        return g->scale == GENE_ALIGN32 ? 32 : 1;
}

static bool ordered(const struct gene *g)
{
        return g->scale == GENE_STEP || g->scale == GENE_POW2 || g->scale == GENE_ALIGN32;
}

/* The largest value on the gene's grid below x, or x when there is none. */
static int64_t grid_below(const struct gene *g, int64_t x)
{
        int64_t v = gene_snap(g, x - 1);

        for (int i = 0; i < 64 && v >= x && v > g->lo; i++)
                v = gene_snap(g, g->scale == GENE_POW2 ? v / 2 : v - step_at(g, v));
        return v < x ? v : x;
}

/* The smallest value on the gene's grid above x, or x when there is none. */
static int64_t grid_above(const struct gene *g, int64_t x)
{
        int64_t v = gene_snap(g, x + 1);

        for (int i = 0; i < 64 && v <= x && v < g->hi; i++)
                v = gene_snap(g, v + step_at(g, v));
        return v > x ? v : x;
}

/*
 * The values the gene can take, every one when there are few, else a
 * linear sample with the small multiples of powers of two (what
 * dimensions divide into) added.
 */
static size_t probes(const struct gene *g, int64_t *out)
{
        size_t n = 0;

        for (int64_t v = gene_snap(g, g->lo); n < PROBES_ALL_UP_TO;) {
                int64_t next = gene_snap(g, v + step_at(g, v));
                out[n++] = v;
                if (next <= v)
                        return n;
                v = next;
        }
        n = 0;
        for (int i = 0; i < PROBES_SAMPLED; i++)
                out[n++] = gene_snap(
                    g, g->lo + (int64_t)((double)(g->hi - g->lo) * i / (PROBES_SAMPLED - 1)));
        for (int64_t c = 1; c <= 7; c += 2)
                for (int k = 0; k < 62 && n < PROBES_MAX && (c << k) <= g->hi; k++)
                        if ((c << k) >= g->lo && gene_snap(g, c << k) == (c << k))
                                out[n++] = c << k;
        return n;
}

/* Whether no passing value (nor the baseline's) breaks r. */
static bool consistent(const struct search_constraint_rule *r, const struct gene *gene,
                       const int64_t *passing, size_t n_passing)
{
        if (!rule_allows(r, gene->value))
                return false;
        for (size_t i = 0; i < n_passing; i++)
                if (!rule_allows(r, passing[i]))
                        return false;
        return true;
}

/* Whether r rules out every blamed failure. */
static bool explains_all(const struct search_constraint_rule *r,
                         const struct constraint_failure *failures, size_t n_failures)
{
        for (size_t i = 0; i < n_failures; i++)
                if (failures[i].blamed && rule_allows(r, failures[i].value))
                        return false;
        return true;
}

/* The hypotheses about an ordered gene; returns how many (at most HYPOTHESES_MAX). */
static size_t hypotheses(const struct gene *gene, const int64_t *passing, size_t n_passing,
                         const struct constraint_failure *failures, size_t n_failures,
                         const int64_t *facts, size_t n_facts, struct search_constraint_rule *out)
{
        /* the range the passing values (the baseline's among them) span */
        int64_t most = gene->value, least, above = INT64_MAX, below = INT64_MIN;
        size_t n = 0;

        least = most;
        for (size_t i = 0; i < n_facts && i < SEARCH_FACTS_MAX; i++) {
                bool dup = false;
                for (size_t j = 0; j < i; j++)
                        dup |= facts[j] == facts[i];
                if (facts[i] > 1 && !dup)
                        out[n++] = (struct search_constraint_rule){ CONSTRAINT_DIVIDES, facts[i] };
        }
        for (int k = 1; k < 62 && ((int64_t)1 << k) <= gene->hi; k++)
                out[n++] =
                    (struct search_constraint_rule){ CONSTRAINT_MULTIPLE_OF, (int64_t)1 << k };
        for (size_t i = 0; i < n_passing; i++) {
                most = passing[i] > most ? passing[i] : most;
                least = passing[i] < least ? passing[i] : least;
        }
        for (size_t i = 0; i < n_failures; i++) {
                int64_t f = failures[i].value;
                if (!failures[i].blamed)
                        continue;
                if (f > most && f < above)
                        above = f;
                if (f < least && f > below)
                        below = f;
        }
        /* the bound sits on the grid just short of the nearest failure, never inside a pass */
        if (above != INT64_MAX) {
                int64_t m = grid_below(gene, above);
                out[n++] = (struct search_constraint_rule){ CONSTRAINT_MAX, m > most ? m : most };
        }
        if (below != INT64_MIN) {
                int64_t m = grid_above(gene, below);
                out[n++] = (struct search_constraint_rule){ CONSTRAINT_MIN, m < least ? m : least };
        }
        /* allows least of all, so it stands only where nothing else explains the failures */
        out[n++] = (struct search_constraint_rule){ CONSTRAINT_ONLY, gene->value };
        return n;
}

/* Whether every probe a allows, b allows too. */
static bool allows_no_more(const struct search_constraint_rule *a,
                           const struct search_constraint_rule *b, const int64_t *probe,
                           size_t n_probes)
{
        for (size_t i = 0; i < n_probes; i++)
                if (rule_allows(a, probe[i]) && !rule_allows(b, probe[i]))
                        return false;
        return true;
}

/* Appends value to the constraint's list of failing values when new and there is room. */
static void note_value(struct search_constraint *c, int64_t v)
{
        for (size_t i = 0; i < c->n_values; i++)
                if (c->values[i] == v)
                        return;
        if (c->n_values < SEARCH_CONSTRAINT_VALUES)
                c->values[c->n_values++] = v;
}

static void note_kind(struct search_constraint *c, const char *kind)
{
        size_t len = strlen(c->kinds), klen;
        const char *p = c->kinds;

        kind = kind ? kind : "?";
        klen = strlen(kind);
        while ((p = strstr(p, kind))) {
                if ((p == c->kinds || p[-1] == ',') && (p[klen] == ',' || p[klen] == '\0'))
                        return;
                p += klen;
        }
        if (len + klen + 2 <= sizeof(c->kinds))
                snprintf(c->kinds + len, sizeof(c->kinds) - len, "%s%s", len ? "," : "", kind);
}

/* Fills in the blamed failures a constraint explains. */
static void note_evidence(struct search_constraint *c, const struct constraint_failure *failures,
                          size_t n_failures)
{
        for (size_t i = 0; i < n_failures; i++) {
                if (!failures[i].blamed || search_constraint_allows(c, failures[i].value))
                        continue;
                c->failures++;
                note_value(c, failures[i].value);
                note_kind(c, failures[i].kind);
        }
}

/* An unordered gene: "not N" for each value that failed twice on it alone and never passed. */
static size_t learn_choice(const struct gene *gene, size_t g, const int64_t *passing,
                           size_t n_passing, const struct constraint_failure *failures,
                           size_t n_failures, struct search_constraint *out, size_t room)
{
        size_t learnt = 0;

        for (size_t i = 0; i < n_failures && learnt < room; i++) {
                struct search_constraint_rule r = { CONSTRAINT_NOT, failures[i].value };
                size_t times = 0;
                bool first = true;
                if (!failures[i].blamed)
                        continue;
                for (size_t k = 0; k < n_failures; k++) {
                        if (!failures[k].blamed || failures[k].value != r.n)
                                continue;
                        first &= k >= i;
                        times++;
                }
                if (!first || times < 2 || !consistent(&r, gene, passing, n_passing))
                        continue;
                memset(&out[learnt], 0, sizeof(out[learnt]));
                out[learnt].gene = g;
                out[learnt].any[0] = r;
                out[learnt].n_any = 1;
                note_evidence(&out[learnt], failures, n_failures);
                learnt++;
        }
        return learnt;
}

size_t constraints_learn(const struct gene *gene, size_t g, const int64_t *passing,
                         size_t n_passing, const struct constraint_failure *failures,
                         size_t n_failures, const int64_t *facts, size_t n_facts,
                         struct search_constraint *out, size_t room)
{
        struct search_constraint_rule h[HYPOTHESES_MAX], standing[SEARCH_CONSTRAINT_ANY];
        int64_t probe[PROBES_ALL_UP_TO > PROBES_MAX ? PROBES_ALL_UP_TO : PROBES_MAX];
        size_t n_h, n_probes, n_blamed = 0, kept = 0;
        struct search_constraint *c = out;

        for (size_t i = 0; i < n_failures; i++)
                n_blamed += failures[i].blamed;
        if (room == 0 || n_blamed == 0)
                return 0;
        if (gene->scale == GENE_CHOICE)
                return learn_choice(gene, g, passing, n_passing, failures, n_failures, out, room);
        if (!ordered(gene))
                return 0;
        n_h = hypotheses(gene, passing, n_passing, failures, n_failures, facts, n_facts, h);
        /* the version space: what explains every blamed failure and breaks no pass */
        for (size_t k = 0; k < n_h; k++)
                if (explains_all(&h[k], failures, n_failures) &&
                    consistent(&h[k], gene, passing, n_passing))
                        h[kept++] = h[k];
        /* less what another allows all of (of two that allow the same, the first stays) */
        n_probes = probes(gene, probe);
        n_h = kept;
        kept = 0;
        for (size_t k = 0; k < n_h && kept <= SEARCH_CONSTRAINT_ANY; k++) {
                bool dominated = false;
                for (size_t j = 0; j < n_h && !dominated; j++) {
                        if (j == k || !allows_no_more(&h[k], &h[j], probe, n_probes))
                                continue;
                        /* equal on the probes: the earlier one stands for both */
                        dominated = !allows_no_more(&h[j], &h[k], probe, n_probes) || j < k;
                }
                if (!dominated && kept < SEARCH_CONSTRAINT_ANY)
                        standing[kept] = h[k];
                kept += !dominated;
        }
        /*
         * two failures that agree, or one that a dimension of the problem
         * alone explains (no bound, no alignment, no other dimension does)
         */
        if (kept == 0 || kept > SEARCH_CONSTRAINT_ANY ||
            (n_blamed < 2 && (kept > 1 || standing[0].kind != CONSTRAINT_DIVIDES)))
                return 0;
        memset(c, 0, sizeof(*c));
        c->gene = g;
        memcpy(c->any, standing, kept * sizeof(*standing));
        c->n_any = kept;
        note_evidence(c, failures, n_failures);
        return 1;
}
