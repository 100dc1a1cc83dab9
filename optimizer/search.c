/* SPDX-License-Identifier: MIT */
/*
 * Stage I's evolutionary search over gene values, with an AUC bandit over
 * its techniques and a memory of failures (UB overflows here, the
 * constraints wrong answers teach in search-constraints.c).  Pure
 * computation: the episode proposes, evaluates and records; this file
 * only decides what to try.
 */
#include "search-internal.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_RECORDED   4096
#define CREDIT_WINDOW  32
#define PROPOSAL_TRIES 64
#define EXPLORATION    0.5
#define SCATTER_ABOVE  4 /* live genes past which the first population is scattered */

static const char *const technique_names[TECHNIQUE_COUNT] = {
        [TECHNIQUE_MUTATE_STEP] = "mutate_step",
        [TECHNIQUE_MUTATE_SCALE] = "mutate_scale",
        [TECHNIQUE_MUTATE_ALIGN] = "mutate_align",
        [TECHNIQUE_MUTATE_RESET] = "mutate_reset",
        [TECHNIQUE_CROSSOVER] = "crossover",
        [TECHNIQUE_RANDOM] = "random",
        [TECHNIQUE_SWEEP] = "sweep",
        [TECHNIQUE_SCATTER] = "scatter",
};

struct entry {
        int64_t *values;
        uint8_t *blamed; /* n_genes flags: a passing genome differs from this failure there alone */
        bool ok;
        double latency_us;
        char kind[32];
        int technique; /* TECHNIQUE_COUNT for the baseline or an outside proposal */
};

struct search {
        const struct gene *genes;
        size_t n_genes;
        struct search_options options;
        uint64_t rng[4];
        struct entry *seen;
        size_t n_seen, cap_seen;
        long best; /* index into seen, -1 before any success */
        uint8_t window[TECHNIQUE_COUNT][CREDIT_WINDOW];
        size_t window_len[TECHNIQUE_COUNT];
        uint64_t uses[TECHNIQUE_COUNT];
        const bool *frozen;               /* borrowed: genes a rewrite took away, or NULL */
        const struct search_inert *inert; /* borrowed: genes a move leaves nothing to do */
        size_t n_inert;
        struct search_constraint constraints[SEARCH_CONSTRAINTS_MAX];
        size_t n_constraints;
        uint64_t rejections; /* proposals a constraint turned away */
        bool replaying;      /* search_from_json: learn once, at the end */
};

const char *search_technique_name(enum search_technique t)
{
        return t < TECHNIQUE_COUNT ? technique_names[t] : "baseline";
}

/* ------------------------------------------------------------ randomness */

static uint64_t rotl(uint64_t x, int k)
{
        return (x << k) | (x >> (64 - k));
}

/* xoshiro256** (Blackman and Vigna), seeded through splitmix64. */
static uint64_t next_random(struct search *s)
{
        uint64_t *r = s->rng;
        uint64_t result = rotl(r[1] * 5, 7) * 9, t = r[1] << 17;

        r[2] ^= r[0];
        r[3] ^= r[1];
        r[1] ^= r[2];
        r[0] ^= r[3];
        r[2] ^= t;
        r[3] = rotl(r[3], 45);
        return result;
}

static void seed_random(struct search *s, uint64_t seed)
{
        for (int i = 0; i < 4; i++) {
                uint64_t z = (seed += 0x9e3779b97f4a7c15ull);
                z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
                z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
                s->rng[i] = z ^ (z >> 31);
        }
}

/* Uniform in [lo, hi]. */
static int64_t random_between(struct search *s, int64_t lo, int64_t hi)
{
        uint64_t span = (uint64_t)(hi - lo) + 1;

        if (hi <= lo)
                return lo;
        return lo + (int64_t)(next_random(s) % span);
}

static double random_unit(struct search *s)
{
        return (double)(next_random(s) >> 11) / 9007199254740992.0;
}

/* ------------------------------------------------------------ lifecycle */

int search_new(const struct gene *genes, size_t n_genes, const struct search_options *options,
               struct search **ret_search)
{
        struct search *s = calloc(1, sizeof(*s));

        if (!s)
                return -ENOMEM;
        s->genes = genes;
        s->n_genes = n_genes;
        if (options)
                s->options = *options;
        if (!s->options.population)
                s->options.population = 16;
        s->best = -1;
        seed_random(s, s->options.seed);
        *ret_search = s;
        return 0;
}

struct search *search_free(struct search *s)
{
        if (!s)
                return NULL;
        for (size_t i = 0; i < s->n_seen; i++)
                free(s->seen[i].values);
        free(s->seen);
        free(s);
        return NULL;
}

/* ------------------------------------------------------------ memory */

static bool same_genome(const struct search *s, const int64_t *a, const int64_t *b)
{
        return memcmp(a, b, s->n_genes * sizeof(*a)) == 0;
}

static bool already_seen(const struct search *s, const int64_t *values)
{
        for (size_t i = 0; i < s->n_seen; i++)
                if (same_genome(s, s->seen[i].values, values))
                        return true;
        return false;
}

/* The first genome that worked (the baseline), which failures are seen from. */
static const int64_t *first_working(const struct search *s)
{
        for (size_t i = 0; i < s->n_seen; i++)
                if (s->seen[i].ok)
                        return s->seen[i].values;
        return NULL;
}

int search_overflow_direction(const struct search *s, size_t g)
{
        const int64_t *origin = first_working(s);
        long votes = 0, failures = 0;

        if (g >= s->n_genes || s->genes[g].scale == GENE_CHOICE || !origin)
                return 0;
        for (size_t i = 0; i < s->n_seen; i++) {
                const struct entry *e = &s->seen[i];
                if (e->ok || strcmp(e->kind, "ub_overflow") != 0)
                        continue;
                failures++;
                votes += (e->values[g] > origin[g]) - (e->values[g] < origin[g]);
        }
        /* a gene that merely varied at random among the failures has no say */
        if (failures == 0 || labs(votes) * 2 <= failures)
                return 0;
        return votes > 0 ? 1 : -1;
}

/*
 * Whether values lies beyond a genome that overflowed UB, seen from the
 * first genome that worked: on every gene where the failure moved away from
 * it in the direction the failures so far agree overflows, values moved at
 * least as far the same way, and on every other gene it agrees.  Bigger
 * tiles overflow, but so can fewer buffers when the tile is derived by
 * dividing the UB, so the direction is learnt per gene rather than assumed.
 * A gene the failures moved both ways (more cores with fewer tiles, fewer
 * cores with more) says nothing about which way is safe: a failure at 16
 * cores and 64 tiles does not rule out 32 cores and 64 tiles.
 */
static bool in_failing_region(const struct search *s, const int64_t *values)
{
        const int64_t *origin = first_working(s);
        int direction[GENES_MAX];

        if (!origin)
                return false;
        for (size_t g = 0; g < s->n_genes; g++)
                direction[g] = search_overflow_direction(s, g);
        for (size_t i = 0; i < s->n_seen; i++) {
                const struct entry *e = &s->seen[i];
                bool beyond = true;
                if (e->ok || strcmp(e->kind, "ub_overflow") != 0)
                        continue;
                for (size_t g = 0; g < s->n_genes && beyond; g++) {
                        int64_t f = e->values[g], o = origin[g], v = values[g];
                        int moved = (f > o) - (f < o);
                        if (s->genes[g].scale != GENE_CHOICE && moved != 0 && moved == direction[g])
                                beyond = moved > 0 ? v >= f : v <= f;
                        else
                                beyond = v == f; /* unordered, unmoved or undecided */
                }
                if (beyond)
                        return true;
        }
        return false;
}

/* ------------------------------------------------------------ constraints */

/*
 * Whether a failure of this kind says something about the genome's values
 * that a constraint could hold: not a slow run, a timeout or the
 * infrastructure's error.  A UB overflow does: the region memory above
 * only rules out genomes whose every other gene agrees with a failure, so
 * a gene that does not matter (a minimum share per core) varying at
 * random let cann-ops' gelu_quant overflow 20 times in 40 evaluations on
 * a live-tensor count below the kernel's; blamed on that count alone, two
 * overflows make it a bound.
 */
static bool teaches_constraints(const struct entry *e)
{
        static const char *const not_these[] = { "slow", "timeout", "infra_error" };

        if (e->ok)
                return false;
        for (size_t i = 0; i < sizeof(not_these) / sizeof(not_these[0]); i++)
                if (strcmp(e->kind, not_these[i]) == 0)
                        return false;
        return true;
}

/* The one gene two genomes differ in, or -1 when they differ in none or several. */
static long single_difference(const struct search *s, const int64_t *a, const int64_t *b)
{
        long gene = -1;

        for (size_t g = 0; g < s->n_genes; g++) {
                if (a[g] == b[g])
                        continue;
                if (gene >= 0)
                        return -1;
                gene = (long)g;
        }
        return gene;
}

/*
 * Blames the failing entry f on the gene it alone differs in from the
 * passing entry p; true when that is news.
 */
static bool blame(const struct search *s, struct entry *f, const struct entry *p)
{
        long g = single_difference(s, f->values, p->values);

        if (g < 0 || f->blamed[g])
                return false;
        f->blamed[g] = 1;
        return true;
}

/* Whether a failure is blamed on gene g alone. */
static bool blamed_on(const struct search *s, size_t g)
{
        for (size_t i = 0; i < s->n_seen; i++)
                if (s->seen[i].blamed[g])
                        return true;
        return false;
}

/* a * b, or INT64_MAX past it: values are positive on every ordered scale */
static int64_t product(int64_t a, int64_t b)
{
        if (a > 0 && b > 0 && a > INT64_MAX / b)
                return INT64_MAX;
        return a * b;
}

/* What constraint c bounds in a genome: its gene's value, or the product of a coupled pair. */
static int64_t constrained(const struct search_constraint *c, const int64_t *values)
{
        return c->coupled ? product(values[c->gene], values[c->with]) : values[c->gene];
}

static bool has_constraint(const struct search *s, size_t g)
{
        for (size_t i = 0; i < s->n_constraints; i++)
                if (s->constraints[i].gene == g ||
                    (s->constraints[i].coupled && s->constraints[i].with == g))
                        return true;
        return false;
}

/* Whether gene g of a genome is held as written because a move takes its place there. */
static bool inert_in(const struct search *s, const int64_t *values, size_t g)
{
        for (size_t i = 0; i < s->n_inert; i++)
                if (s->inert[i].gene == g && s->inert[i].move < s->n_genes &&
                    values[s->inert[i].move] == s->inert[i].site)
                        return true;
        return false;
}

/*
 * A bound on gene a times gene b that explains every failure blamed on a
 * (at least two) and that no pass breaks; false when there is none.  A
 * genome where a move holds either gene as written says nothing of the
 * product: with the core count read from the platform, the 8 cores it
 * still spells are 48, and 8 times a small tile count would pass for a
 * product that overflows the UB without the move.
 */
static bool coupled_bound(const struct search *s, size_t a, size_t b, struct search_constraint *out)
{
        int64_t most_pass = product(s->genes[a].value, s->genes[b].value), least_pass = most_pass;
        int64_t least_fail = INT64_MAX, most_fail = INT64_MIN;
        size_t n_failures = 0;
        bool varies = false;

        for (size_t i = 0; i < s->n_seen; i++) {
                const struct entry *e = &s->seen[i];
                int64_t p = product(e->values[a], e->values[b]);
                if (inert_in(s, e->values, a) || inert_in(s, e->values, b))
                        continue;
                varies |= e->values[b] != s->genes[b].value;
                if (e->ok) {
                        most_pass = p > most_pass ? p : most_pass;
                        least_pass = p < least_pass ? p : least_pass;
                } else if (teaches_constraints(e) && e->blamed[a]) {
                        least_fail = p < least_fail ? p : least_fail;
                        most_fail = p > most_fail ? p : most_fail;
                        n_failures++;
                }
        }
        /* a gene b that never moved says nothing a's own bound would not */
        if (n_failures < 2 || !varies)
                return false;
        memset(out, 0, sizeof(*out));
        if (least_fail > most_pass)
                out->any[0] = (struct search_constraint_rule){ CONSTRAINT_MAX, least_fail - 1 };
        else if (most_fail < least_pass)
                out->any[0] = (struct search_constraint_rule){ CONSTRAINT_MIN, most_fail + 1 };
        else
                return false;
        out->gene = a;
        out->coupled = true;
        out->with = b;
        out->n_any = 1;
        for (size_t i = 0; i < s->n_seen; i++) {
                const struct entry *e = &s->seen[i];
                if (e->ok || !teaches_constraints(e) || !e->blamed[a] ||
                    inert_in(s, e->values, a) || inert_in(s, e->values, b))
                        continue;
                out->failures++;
                if (out->n_values < SEARCH_CONSTRAINT_VALUES)
                        out->values[out->n_values++] = product(e->values[a], e->values[b]);
                if (!strstr(out->kinds, e->kind) &&
                    strlen(out->kinds) + strlen(e->kind) + 2 <= sizeof(out->kinds))
                        snprintf(out->kinds + strlen(out->kinds),
                                 sizeof(out->kinds) - strlen(out->kinds), "%s%s",
                                 out->kinds[0] ? "," : "", e->kind);
        }
        return true;
}

/*
 * A gene whose blamed failures no rule of its own explains may fail with
 * another: a tile count that is fine with few cores overflows a copy's
 * alignment with many.  Its failures and every pass are tried against a
 * bound on its product with each other ordered gene; the first that
 * explains them all is learnt.
 */
static void learn_coupled(struct search *s)
{
        for (size_t a = 0; a < s->n_genes && s->n_constraints < SEARCH_CONSTRAINTS_MAX; a++) {
                if (s->genes[a].scale == GENE_CHOICE || !blamed_on(s, a) || has_constraint(s, a))
                        continue;
                for (size_t b = 0; b < s->n_genes; b++) {
                        if (b == a || s->genes[b].scale == GENE_CHOICE)
                                continue;
                        if (coupled_bound(s, a, b, &s->constraints[s->n_constraints])) {
                                s->n_constraints++;
                                break;
                        }
                }
        }
}

/* Learns every gene's constraints again from the failures and the passes. */
static void relearn(struct search *s)
{
        struct constraint_failure *failures = calloc(s->n_seen + 1, sizeof(*failures));
        int64_t *passing = calloc(s->n_seen + 1, sizeof(*passing));

        if (!failures || !passing)
                goto out; /* out of memory: what was learnt stays */
        s->n_constraints = 0;
        for (size_t g = 0; g < s->n_genes && s->n_constraints < SEARCH_CONSTRAINTS_MAX; g++) {
                size_t n_failures = 0, n_passing = 0;
                for (size_t i = 0; i < s->n_seen; i++) {
                        const struct entry *e = &s->seen[i];
                        bool dup = false;
                        if (!e->ok) {
                                if (teaches_constraints(e))
                                        failures[n_failures++] =
                                            (struct constraint_failure){ e->values[g], e->kind,
                                                                         e->blamed[g] != 0 };
                                continue;
                        }
                        for (size_t j = 0; j < n_passing && !dup; j++)
                                dup = passing[j] == e->values[g];
                        if (!dup)
                                passing[n_passing++] = e->values[g];
                }
                if (!blamed_on(s, g))
                        continue;
                s->n_constraints += constraints_learn(
                    &s->genes[g], g, passing, n_passing, failures, n_failures, s->options.facts,
                    s->options.n_facts, s->constraints + s->n_constraints,
                    SEARCH_CONSTRAINTS_MAX - s->n_constraints);
        }
        learn_coupled(s);
out:
        free(failures);
        free(passing);
}

/* Whether constraint c speaks of the genome: a product, not where a move holds one of its genes. */
static bool binds(const struct search *s, const struct search_constraint *c, const int64_t *values)
{
        return !c->coupled || (!inert_in(s, values, c->gene) && !inert_in(s, values, c->with));
}

bool search_allows(const struct search *s, const int64_t *values)
{
        for (size_t i = 0; i < s->n_constraints; i++)
                if (binds(s, &s->constraints[i], values) &&
                    !search_constraint_allows(&s->constraints[i],
                                              constrained(&s->constraints[i], values)))
                        return false;
        return true;
}

/* Whether a genome breaks one of the hypotheses a constraint holds (the constraint it may keep). */
static bool breaks_a_hypothesis(const struct search *s, const int64_t *values)
{
        for (size_t i = 0; i < s->n_constraints; i++) {
                const struct search_constraint *c = &s->constraints[i];
                for (size_t k = 0; binds(s, c, values) && k < c->n_any; k++) {
                        struct search_constraint one = { .gene = c->gene, .n_any = 1 };
                        one.any[0] = c->any[k];
                        if (!search_constraint_allows(&one, constrained(c, values)))
                                return true;
                }
        }
        return false;
}

/*
 * Takes the entry just recorded into the constraints: a failure blamed on
 * a gene, or a pass that blames an earlier failure or breaks a hypothesis
 * a constraint holds, makes them learnt again.
 */
static void learn_from(struct search *s, struct entry *e)
{
        bool changed = false;

        if (teaches_constraints(e)) {
                for (size_t i = 0; i < s->n_seen; i++)
                        if (s->seen[i].ok)
                                changed |= blame(s, e, &s->seen[i]);
        } else if (e->ok) {
                for (size_t i = 0; i < s->n_seen; i++)
                        if (teaches_constraints(&s->seen[i]))
                                changed |= blame(s, &s->seen[i], e);
                changed |= breaks_a_hypothesis(s, e->values);
        }
        if (changed && !s->replaying)
                relearn(s);
}

size_t search_constraints(const struct search *s, const struct search_constraint **ret)
{
        *ret = s->constraints;
        return s->n_constraints;
}

uint64_t search_constraint_rejections(const struct search *s)
{
        return s->rejections;
}

/* "must divide 2048" for one rule of gene name. */
static void describe_rule(const struct search_constraint_rule *r, char *buf, size_t size)
{
        static const char *const phrases[] = {
                [CONSTRAINT_DIVIDES] = "divide", [CONSTRAINT_MULTIPLE_OF] = "be a multiple of",
                [CONSTRAINT_MAX] = "be at most", [CONSTRAINT_MIN] = "be at least",
                [CONSTRAINT_NOT] = "not be",     [CONSTRAINT_ONLY] = "stay",
        };

        snprintf(buf, size, "%s %lld",
                 (size_t)r->kind < sizeof(phrases) / sizeof(phrases[0]) ? phrases[r->kind] : "?",
                 (long long)r->n);
}

void search_constraint_describe(const struct search *s, const struct search_constraint *c,
                                char *buf, size_t size)
{
        const char *name = c->gene < s->n_genes ? s->genes[c->gene].name : "?";
        size_t len;

        if (c->coupled)
                snprintf(buf, size, "%s x %s must", name,
                         c->with < s->n_genes ? s->genes[c->with].name : "?");
        else
                snprintf(buf, size, "%s must", name);
        for (size_t i = 0; i < c->n_any; i++) {
                char rule[96];
                describe_rule(&c->any[i], rule, sizeof(rule));
                len = strlen(buf);
                snprintf(buf + len, size - len, "%s %s", i ? " or" : "", rule);
        }
        len = strlen(buf);
        snprintf(buf + len, size - len, " (%zu failure%s, %s:", c->failures,
                 c->failures == 1 ? "" : "s", c->kinds);
        for (size_t i = 0; i < c->n_values; i++) {
                len = strlen(buf);
                snprintf(buf + len, size - len, "%s %lld", i ? "," : "", (long long)c->values[i]);
        }
        len = strlen(buf);
        snprintf(buf + len, size - len, "%s)",
                 c->n_values == SEARCH_CONSTRAINT_VALUES && c->failures > c->n_values ? ", ..."
                                                                                      : "");
}

/* One constraint as search_constraints_json lists it; NULL when out of memory. */
static json_t *constraint_json(const struct search *s, const struct search_constraint *c)
{
        json_t *values = json_array(), *others = json_array(), *o;
        char text[512];

        search_constraint_describe(s, c, text, sizeof(text));
        for (size_t k = 0; values && k < c->n_values; k++)
                json_array_append_new(values, json_integer(c->values[k]));
        for (size_t k = 1; others && k < c->n_any; k++)
                json_array_append_new(others, json_pack("{s:s, s:I}", "kind",
                                                        search_constraint_kind_name(c->any[k].kind),
                                                        "n", (json_int_t)c->any[k].n));
        if (!values || !others) {
                json_decref(values);
                json_decref(others);
                return NULL;
        }
        o = json_pack("{s:I, s:s, s:s, s:I, s:I, s:o, s:s, s:s}", "gene", (json_int_t)c->gene,
                      "name", s->genes[c->gene].name, "kind",
                      search_constraint_kind_name(c->any[0].kind), "n", (json_int_t)c->any[0].n,
                      "failures", (json_int_t)c->failures, "values", values, "kinds", c->kinds,
                      "text", text);
        if (o && c->coupled &&
            json_object_set_new(o, "times", json_string(s->genes[c->with].name)) < 0) {
                json_decref(o);
                o = NULL;
        }
        if (!o || c->n_any == 1) {
                json_decref(others);
                return o;
        }
        if (json_object_set_new(o, "or", others) < 0) {
                json_decref(o);
                return NULL;
        }
        return o;
}

json_t *search_constraints_json(const struct search *s)
{
        json_t *list = json_array();

        for (size_t i = 0; list && i < s->n_constraints; i++) {
                if (json_array_append_new(list, constraint_json(s, &s->constraints[i])) < 0) {
                        json_decref(list);
                        return NULL;
                }
        }
        return list;
}

/* The baseline genome: the values as written. */
static void baseline(const struct search *s, int64_t *values)
{
        for (size_t g = 0; g < s->n_genes; g++)
                values[g] = s->genes[g].value;
}

/* Tournament of two among the best `population` successes; the baseline if none. */
static const int64_t *pick_parent(struct search *s, int64_t *fallback)
{
        size_t cap = s->options.population < 64 ? s->options.population : 64;
        size_t order[64], n = 0;

        for (size_t i = 0; i < s->n_seen; i++) {
                double latency = s->seen[i].latency_us;
                size_t j;
                if (!s->seen[i].ok)
                        continue;
                if (n == cap && latency >= s->seen[order[n - 1]].latency_us)
                        continue;
                j = n < cap ? n++ : n - 1; /* when full, the worst makes room */
                while (j > 0 && s->seen[order[j - 1]].latency_us > latency) {
                        order[j] = order[j - 1];
                        j--;
                }
                order[j] = i;
        }
        if (n == 0) {
                baseline(s, fallback);
                return fallback;
        }
        size_t a = (size_t)random_between(s, 0, (int64_t)n - 1);
        size_t b = (size_t)random_between(s, 0, (int64_t)n - 1);
        return s->seen[order[a < b ? a : b]].values;
}

/* ------------------------------------------------------------ techniques */

/*
 * A fresh value for g.  Wide ranges are drawn log-uniformly, as powers of two
 * are, so that a tile length from 128 to 32768 is as likely to land near 256
 * as near 16384 rather than mostly in the top half.
 */
static int64_t random_value(struct search *s, const struct gene *g)
{
        if (g->scale == GENE_POW2) {
                int lo = 0, hi = 0;
                while ((1ll << lo) < g->lo)
                        lo++;
                while ((1ll << (hi + 1)) <= g->hi)
                        hi++;
                return gene_snap(g, 1ll << random_between(s, lo, hi));
        }
        if (g->lo > 0 && g->hi >= 8 * g->lo) {
                double span = log((double)(g->hi + 1) / (double)g->lo);
                return gene_snap(g, (int64_t)((double)g->lo * exp(random_unit(s) * span)));
        }
        return gene_snap(g, random_between(s, g->lo, g->hi));
}

static void mutate_gene(struct search *s, enum search_technique t, const struct gene *g, int64_t *v)
{
        int64_t x = *v;

        /* a choice has no neighbours or scale: any mutation picks another one */
        if (g->scale == GENE_CHOICE) {
                if (g->hi > g->lo) {
                        x = random_between(s, g->lo, g->hi - 1);
                        *v = x >= *v ? x + 1 : x;
                }
                return;
        }
        switch (t) {
        case TECHNIQUE_MUTATE_STEP:
                if (g->scale == GENE_POW2)
                        x = random_unit(s) < 0.5 ? x * 2 : x / 2;
                else if (g->scale == GENE_ALIGN32)
                        x += 32 * random_between(s, 1, 4) * (random_unit(s) < 0.5 ? -1 : 1);
                else {
                        /* log-uniform step: mostly small moves, sometimes a leap */
                        double span = (double)(g->hi - g->lo) / 2;
                        int64_t step = (int64_t)exp(random_unit(s) * log(span > 1 ? span : 1));
                        x += (step > 0 ? step : 1) * (random_unit(s) < 0.5 ? -1 : 1);
                }
                break;
        case TECHNIQUE_MUTATE_SCALE:
                x = random_unit(s) < 0.5 ? x * 2 : x / 2;
                break;
        case TECHNIQUE_MUTATE_ALIGN:
                x = (int64_t)((double)x * (0.75 + 0.5 * random_unit(s)));
                x = (x + 16) / 32 * 32;
                break;
        case TECHNIQUE_MUTATE_RESET:
        default:
                x = random_value(s, g);
                break;
        }
        *v = gene_snap(g, x);
}

static bool is_frozen(const struct search *s, size_t g)
{
        return s->frozen && s->frozen[g];
}

/*
 * Whether technique t can move gene g: halving, doubling and aligning mean
 * nothing for a choice, so they leave choices alone unless every gene is one.
 */
static bool can_mutate(const struct search *s, size_t g, enum search_technique t, bool numeric)
{
        if (is_frozen(s, g))
                return false;
        if (numeric && (t == TECHNIQUE_MUTATE_SCALE || t == TECHNIQUE_MUTATE_ALIGN))
                return s->genes[g].scale != GENE_CHOICE;
        return true;
}

/* A random gene that technique t can move, or (size_t)-1 when there is none. */
static size_t pick_gene(struct search *s, enum search_technique t)
{
        size_t live = 0, numeric_live = 0, k;
        bool numeric;

        for (size_t g = 0; g < s->n_genes; g++) {
                live += can_mutate(s, g, t, false);
                numeric_live += can_mutate(s, g, t, true);
        }
        numeric = numeric_live > 0;
        live = numeric ? numeric_live : live;
        if (live == 0)
                return (size_t)-1;
        k = (size_t)random_between(s, 0, (int64_t)live - 1);
        for (size_t g = 0; g < s->n_genes; g++)
                if (can_mutate(s, g, t, numeric) && k-- == 0)
                        return g;
        return (size_t)-1;
}

/* Frozen genes keep the best genome's values: changing them changes no text. */
static void hold_frozen(struct search *s, int64_t *values)
{
        int64_t fallback[GENES_MAX];
        const int64_t *best = s->best >= 0 ? s->seen[s->best].values : NULL;

        if (!s->frozen)
                return;
        if (!best) {
                baseline(s, fallback);
                best = fallback;
        }
        for (size_t g = 0; g < s->n_genes; g++)
                if (s->frozen[g])
                        values[g] = best[g];
}

static void apply_technique(struct search *s, enum search_technique t, int64_t *values)
{
        int64_t fallback[GENES_MAX];
        const int64_t *parent;
        size_t first;

        if (t == TECHNIQUE_RANDOM) {
                for (size_t g = 0; g < s->n_genes; g++)
                        values[g] = is_frozen(s, g) ? 0 : random_value(s, &s->genes[g]);
                hold_frozen(s, values);
                return;
        }
        if (t == TECHNIQUE_SCATTER) {
                baseline(s, values);
                hold_frozen(s, values);
                /* one gene, a second with a chance of one in four, a third one in 16 */
                do {
                        size_t g = pick_gene(s, TECHNIQUE_MUTATE_RESET);
                        if (g == (size_t)-1)
                                return;
                        values[g] = random_value(s, &s->genes[g]);
                } while (random_unit(s) < 0.25);
                return;
        }
        parent = pick_parent(s, fallback);
        memcpy(values, parent, s->n_genes * sizeof(*values));
        if (t == TECHNIQUE_CROSSOVER) {
                int64_t fallback2[GENES_MAX];
                const int64_t *other = pick_parent(s, fallback2);
                for (size_t g = 0; g < s->n_genes; g++)
                        if (random_unit(s) < 0.5)
                                values[g] = other[g];
                /* two identical parents would make no news: nudge one gene */
                hold_frozen(s, values);
                if (same_genome(s, values, parent)) {
                        size_t k = pick_gene(s, TECHNIQUE_MUTATE_STEP);
                        if (k != (size_t)-1)
                                mutate_gene(s, TECHNIQUE_MUTATE_STEP, &s->genes[k], &values[k]);
                }
                return;
        }
        hold_frozen(s, values);
        first = pick_gene(s, t);
        if (first == (size_t)-1)
                return;
        mutate_gene(s, t, &s->genes[first], &values[first]);
        if (s->n_genes > 1 && random_unit(s) < 1.0 / 3) {
                size_t second = pick_gene(s, t);
                mutate_gene(s, t, &s->genes[second], &values[second]);
        }
}

/* How many values gene g can take, capped at cap + 1. */
static int64_t gene_cardinality(const struct gene *g, int64_t cap)
{
        int64_t n = 0;

        if (g->scale == GENE_POW2) {
                for (int64_t p = 1; p <= g->hi && n <= cap; p *= 2)
                        n += p >= g->lo;
                return n;
        }
        n = g->scale == GENE_ALIGN32 ? (g->hi - g->lo) / 32 + 1 : g->hi - g->lo + 1;
        return n > cap ? cap + 1 : n;
}

#define SWEEP_ALL_UP_TO 16
#define SWEEP_LADDER    64

/*
 * The values a sweep of g tries from best value b, nearest first in ratio:
 * every value when there are at most SWEEP_ALL_UP_TO, else b times and
 * divided by powers of two, and the range's ends.  Returns how many.
 */
static size_t sweep_values(const struct gene *g, int64_t b, int64_t *out)
{
        size_t n = 0;

        if (gene_cardinality(g, SWEEP_ALL_UP_TO) <= SWEEP_ALL_UP_TO) {
                int64_t step = g->scale == GENE_ALIGN32 ? 32 : 1;
                for (int64_t v = g->scale == GENE_POW2 ? 1 : g->lo; v <= g->hi && n < SWEEP_LADDER;
                     v += g->scale == GENE_POW2 ? v : step)
                        if (v >= g->lo && gene_snap(g, v) == v)
                                out[n++] = v;
        } else {
                out[n++] = g->lo;
                out[n++] = g->hi;
                for (int64_t m = 2; m <= (int64_t)1 << 40 && n + 2 <= SWEEP_LADDER; m *= 2) {
                        out[n++] = gene_snap(g, b > INT64_MAX / m ? g->hi : b * m);
                        out[n++] = gene_snap(g, b / m);
                        if (b / m <= g->lo && b * m >= g->hi)
                                break;
                }
        }
        /* insertion sort by distance in ratio from b; equal distances keep order */
        for (size_t i = 1; i < n; i++) {
                int64_t v = out[i];
                double d = fabs(log((double)(v > 0 ? v : 1) / (double)(b > 0 ? b : 1)));
                size_t j = i;
                while (j > 0 && fabs(log((double)(out[j - 1] > 0 ? out[j - 1] : 1) /
                                         (double)(b > 0 ? b : 1))) > d) {
                        out[j] = out[j - 1];
                        j--;
                }
                out[j] = v;
        }
        return n;
}

/* search_allows, counting what it turns away. */
static bool allowed(struct search *s, const int64_t *values)
{
        if (search_allows(s, values))
                return true;
        s->rejections++;
        return false;
}

void search_set_inert(struct search *s, const struct search_inert *inert, size_t n)
{
        s->inert = inert;
        s->n_inert = inert ? n : 0;
}

/* The genome's one spelling: a gene its moves leave nothing to do at its value as written. */
static void canonical(const struct search *s, int64_t *values)
{
        for (size_t i = 0; i < s->n_inert; i++) {
                const struct search_inert *x = &s->inert[i];
                if (x->move < s->n_genes && x->gene < s->n_genes && values[x->move] == x->site)
                        values[x->gene] = s->genes[x->gene].value;
        }
}

/* Whether a proposal, spelled canonically, is new and breaks nothing learnt. */
static bool worth_proposing(struct search *s, int64_t *values)
{
        canonical(s, values);
        return !already_seen(s, values) && !in_failing_region(s, values) && allowed(s, values);
}

/*
 * A sweep: the best genome with one gene moved to the nearest of its sweep
 * values not yet tried, genes taken in turn from a random one.  false when
 * every gene's sweep from the best is done.
 */
static bool sweep_proposal(struct search *s, int64_t *values)
{
        int64_t fallback[GENES_MAX], ladder[SWEEP_LADDER];
        const int64_t *best = s->best >= 0 ? s->seen[s->best].values : NULL;
        size_t first = (size_t)random_between(s, 0, (int64_t)s->n_genes - 1);

        if (!best) {
                baseline(s, fallback);
                best = fallback;
        }
        for (size_t k = 0; k < s->n_genes; k++) {
                size_t g = (first + k) % s->n_genes, n;
                if (is_frozen(s, g))
                        continue;
                n = sweep_values(&s->genes[g], best[g], ladder);
                for (size_t i = 0; i < n; i++) {
                        memcpy(values, best, s->n_genes * sizeof(*values));
                        values[g] = ladder[i];
                        if (worth_proposing(s, values))
                                return true;
                }
        }
        return false;
}

/* AUC credit of recent improvements plus an exploration bonus. */
static double bandit_score(const struct search *s, int t, uint64_t total_uses)
{
        double auc = 0, weight = 0;

        if (s->uses[t] == 0)
                return INFINITY;
        for (size_t i = 0; i < s->window_len[t]; i++) {
                auc += (double)(i + 1) * s->window[t][i];
                weight += (double)(i + 1);
        }
        return (weight > 0 ? auc / weight : 0) +
               EXPLORATION * sqrt(2.0 * log((double)total_uses) / (double)s->uses[t]);
}

/* Genes a proposal may move: not frozen by a rewrite. */
static size_t live_genes(const struct search *s)
{
        size_t n = 0;

        for (size_t g = 0; g < s->n_genes; g++)
                n += !is_frozen(s, g);
        return n;
}

static enum search_technique choose_technique(const struct search *s, const bool *exhausted)
{
        uint64_t total = 0;
        double best_score = -1;
        int best = TECHNIQUE_MUTATE_STEP;
        bool wide;

        if (s->options.random_only)
                return TECHNIQUE_RANDOM;
        /*
         * the first population is drawn around the baseline, as a GA seeds
         * it.  A whole random genome of a real tiling program's 10 or 20
         * genes breaks one of them more often than not (half of Best-of-N's
         * evaluations failed on the real-operator table), so there a seed
         * moves a few genes; a small space, where knobs interact (cores and
         * tiles that overflow only together), is sampled whole.
         */
        if (search_drawing_first_population(s))
                return live_genes(s) > SCATTER_ABOVE && !exhausted[TECHNIQUE_SCATTER]
                           ? TECHNIQUE_SCATTER
                           : TECHNIQUE_RANDOM;
        for (int t = 0; t < TECHNIQUE_COUNT; t++)
                total += s->uses[t];
        wide = live_genes(s) > SCATTER_ABOVE;
        for (int t = 0; t < TECHNIQUE_COUNT; t++) {
                double score;
                /*
                 * whole random genomes stay an arm of the ensemble, as in
                 * OpenTuner's, where the space is small and its knobs
                 * interact: sampling finds what local moves cannot reach.
                 * On a wide one they fail (17 of 30 on the real operators
                 * with more than 4 genes, none a new best) and a reset of
                 * one or two genes is the random arm.
                 */
                if (exhausted[t] || t == TECHNIQUE_SCATTER || (wide && t == TECHNIQUE_RANDOM))
                        continue;
                score = bandit_score(s, t, total > 0 ? total : 1);
                if (score > best_score) {
                        best_score = score;
                        best = t;
                }
        }
        return (enum search_technique)best;
}

void search_set_frozen(struct search *s, const bool *frozen)
{
        s->frozen = frozen;
}

/* Slides technique's credit window by one outcome. */
static void credit(struct search *s, enum search_technique technique, bool improved)
{
        size_t *len = &s->window_len[technique];

        if (*len == CREDIT_WINDOW) {
                memmove(s->window[technique], s->window[technique] + 1, CREDIT_WINDOW - 1);
                (*len)--;
        }
        s->window[technique][(*len)++] = improved;
        s->uses[technique]++;
}

bool search_drawing_first_population(const struct search *s)
{
        return !s->options.random_only && s->n_seen < s->options.population / 2;
}

int search_propose(struct search *s, int64_t *values, enum search_technique *ret_technique)
{
        bool exhausted[TECHNIQUE_COUNT] = { false };

        if (s->n_genes == 0 || s->n_genes > GENES_MAX)
                return -ENOSPC;
        for (int round = 0; round < TECHNIQUE_COUNT; round++) {
                enum search_technique t = choose_technique(s, exhausted);
                if (t == TECHNIQUE_SWEEP) {
                        if (sweep_proposal(s, values)) {
                                *ret_technique = t;
                                return 0;
                        }
                        exhausted[t] = true;
                        continue;
                }
                for (int i = 0; i < PROPOSAL_TRIES; i++) {
                        apply_technique(s, t, values);
                        if (worth_proposing(s, values)) {
                                *ret_technique = t;
                                return 0;
                        }
                }
                exhausted[t] = true;
                if (s->options.random_only)
                        break;
        }
        return -ENOSPC;
}

bool search_record(struct search *s, const int64_t *values, enum search_technique technique,
                   bool ok, double latency_us, const char *failure_kind)
{
        struct entry *e;
        bool new_best;

        if (s->n_seen == MAX_RECORDED)
                return false;
        if (s->n_seen == s->cap_seen) {
                size_t cap = s->cap_seen ? 2 * s->cap_seen : 64;
                struct entry *grown = realloc(s->seen, cap * sizeof(*grown));
                if (!grown)
                        return false;
                s->seen = grown;
                s->cap_seen = cap;
        }
        e = &s->seen[s->n_seen];
        memset(e, 0, sizeof(*e));
        e->values = calloc(1, s->n_genes * (sizeof(*values) + 1) + 1);
        if (!e->values)
                return false;
        e->blamed = (uint8_t *)(e->values + s->n_genes);
        memcpy(e->values, values, s->n_genes * sizeof(*values));
        e->ok = ok;
        e->latency_us = latency_us;
        e->technique = technique;
        snprintf(e->kind, sizeof(e->kind), "%s", ok ? "" : (failure_kind ? failure_kind : "?"));
        new_best = ok && (s->best < 0 || latency_us < s->seen[s->best].latency_us);
        if (new_best)
                s->best = (long)s->n_seen;
        s->n_seen++;
        learn_from(s, e);
        if (technique < TECHNIQUE_COUNT)
                credit(s, technique, new_best && s->n_seen > 1);
        return new_best;
}

const int64_t *search_best(const struct search *s, double *ret_latency_us)
{
        if (s->best < 0)
                return NULL;
        if (ret_latency_us)
                *ret_latency_us = s->seen[s->best].latency_us;
        return s->seen[s->best].values;
}

/* ------------------------------------------------------------ persistence */

json_t *search_to_json(const struct search *s)
{
        json_t *root = json_object(), *rng = json_array(), *seen = json_array();
        json_t *credits = json_array(), *constraints;
        bool oom = false;

        for (int i = 0; i < 4; i++) {
                char hex[20];
                snprintf(hex, sizeof(hex), "%016llx", (unsigned long long)s->rng[i]);
                json_array_append_new(rng, json_string(hex));
        }
        for (size_t i = 0; i < s->n_seen; i++) {
                const struct entry *e = &s->seen[i];
                json_t *values = json_array();
                for (size_t g = 0; g < s->n_genes; g++)
                        json_array_append_new(values, json_integer(e->values[g]));
                if (json_array_append_new(seen, json_pack("{s:o, s:b, s:f, s:s, s:i}", "values",
                                                          values, "ok", e->ok, "latency_us",
                                                          e->latency_us, "kind", e->kind,
                                                          "technique", e->technique)) < 0)
                        oom = true;
        }
        for (int t = 0; t < TECHNIQUE_COUNT; t++) {
                json_t *window = json_array();
                for (size_t i = 0; i < s->window_len[t]; i++)
                        json_array_append_new(window, json_integer(s->window[t][i]));
                if (json_array_append_new(
                        credits, json_pack("{s:s, s:I, s:o}", "technique", technique_names[t],
                                           "uses", (json_int_t)s->uses[t], "window", window)) < 0)
                        oom = true;
        }
        json_object_set_new(root, "rng", rng);
        json_object_set_new(root, "seen", seen);
        json_object_set_new(root, "credits", credits);
        json_object_set_new(root, "genes", json_integer((json_int_t)s->n_genes));
        /* what was learnt, for whoever reads the state; search_from_json learns it again */
        constraints = search_constraints_json(s);
        if (!constraints || json_object_set_new(root, "constraints", constraints) < 0)
                oom = true;
        json_object_set_new(root, "constraint_rejections", json_integer((json_int_t)s->rejections));
        if (oom) {
                json_decref(root);
                return NULL;
        }
        return root;
}

int search_from_json(struct search *s, const json_t *state)
{
        const json_t *rng = json_object_get(state, "rng"), *seen = json_object_get(state, "seen");
        const json_t *credits = json_object_get(state, "credits"), *e;
        int64_t values[GENES_MAX];
        size_t i;

        if ((size_t)json_integer_value(json_object_get(state, "genes")) != s->n_genes ||
            json_array_size(rng) != 4 || !json_is_array(credits))
                return -EINVAL;
        for (i = 0; i < s->n_seen; i++)
                free(s->seen[i].values);
        s->n_seen = 0;
        s->best = -1;
        s->n_constraints = 0;
        s->replaying = true;
        memset(s->uses, 0, sizeof(s->uses));
        memset(s->window_len, 0, sizeof(s->window_len));
        json_array_foreach(seen, i, e)
        {
                const json_t *v = json_object_get(e, "values");
                if (json_array_size(v) != s->n_genes) {
                        s->replaying = false;
                        return -EINVAL;
                }
                for (size_t g = 0; g < s->n_genes; g++)
                        values[g] = json_integer_value(json_array_get(v, g));
                /* windows and uses are restored below, so record as outside proposals */
                search_record(s, values, TECHNIQUE_COUNT, json_is_true(json_object_get(e, "ok")),
                              json_number_value(json_object_get(e, "latency_us")),
                              json_string_value(json_object_get(e, "kind")));
                s->seen[s->n_seen - 1].technique =
                    (int)json_integer_value(json_object_get(e, "technique"));
        }
        /* by name: a state saved before a technique existed gives it no credit yet */
        json_array_foreach(credits, i, e)
        {
                const char *name = json_string_value(json_object_get(e, "technique"));
                const json_t *window = json_object_get(e, "window");
                int t = 0;
                while (t < TECHNIQUE_COUNT && (!name || strcmp(technique_names[t], name) != 0))
                        t++;
                if (t == TECHNIQUE_COUNT) {
                        s->replaying = false;
                        return -EINVAL;
                }
                s->uses[t] = (uint64_t)json_integer_value(json_object_get(e, "uses"));
                s->window_len[t] = json_array_size(window) < CREDIT_WINDOW ? json_array_size(window)
                                                                           : CREDIT_WINDOW;
                for (size_t k = 0; k < s->window_len[t]; k++)
                        s->window[t][k] = (uint8_t)json_integer_value(json_array_get(window, k));
        }
        for (int k = 0; k < 4; k++)
                s->rng[k] = strtoull(json_string_value(json_array_get(rng, (size_t)k)), NULL, 16);
        s->replaying = false;
        relearn(s);
        s->rejections =
            (uint64_t)json_integer_value(json_object_get(state, "constraint_rejections"));
        return 0;
}
