/* SPDX-License-Identifier: MIT */
/*
 * The episode report published beside an optimized operator: Markdown, a
 * JSON object with the same facts, a self-contained SVG plot of the
 * trajectory and the commit message, all computed from the episode record
 * (through struct episode_summary) and the stored results.  Pure rendering: no git, no logging.
 */
#include "report.h"
#include "report-internal.h"

#include "common/common.h"
#include "optimizer/episode.h"
#include "optimizer/gap.h"
#include "store/store.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SUBJECT_MAX 100 /* characters of the commit message's first line */

/* ---------------------------------------------------------------- escaping for Markdown and XML */

/* XML character data and attribute values; control characters become '?'. */
static void sbuf_put_xml(struct strbuf *sb, const char *s)
{
        for (; s && *s; s++) {
                switch (*s) {
                case '<':
                        strbuf_puts(sb, "&lt;");
                        break;
                case '>':
                        strbuf_puts(sb, "&gt;");
                        break;
                case '&':
                        strbuf_puts(sb, "&amp;");
                        break;
                case '"':
                        strbuf_puts(sb, "&quot;");
                        break;
                case '\'':
                        strbuf_puts(sb, "&apos;");
                        break;
                default:
                        strbuf_putn(sb, (unsigned char)*s < 0x20 ? "?" : s, 1);
                }
        }
}

/*
 * Text inside a Markdown table cell or line: pipes cannot split the cell,
 * HTML cannot open, emphasis and code cannot start, newlines cannot end it.
 */
void sbuf_put_md(struct strbuf *sb, const char *s)
{
        for (; s && *s; s++) {
                switch (*s) {
                case '|':
                case '\\':
                case '`':
                case '*':
                case '_':
                case '[':
                case ']':
                        strbuf_putn(sb, "\\", 1);
                        strbuf_putn(sb, s, 1);
                        break;
                case '<':
                        strbuf_puts(sb, "&lt;");
                        break;
                case '>':
                        strbuf_puts(sb, "&gt;");
                        break;
                case '&':
                        strbuf_puts(sb, "&amp;");
                        break;
                default:
                        strbuf_putn(sb, (unsigned char)*s < 0x20 ? " " : s, 1);
                }
        }
}

/* A word for a POSIX shell: as is when harmless, else single-quoted. */
static void sbuf_put_shell(struct strbuf *sb, const char *s)
{
        if (*s &&
            strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-./+,:=@%") ==
                strlen(s)) {
                strbuf_puts(sb, s);
                return;
        }
        strbuf_putn(sb, "'", 1);
        for (; *s; s++) {
                if (*s == '\'')
                        strbuf_puts(sb, "'\\''");
                else
                        strbuf_putn(sb, (unsigned char)*s < 0x20 ? " " : s, 1);
        }
        strbuf_putn(sb, "'", 1);
}

/* ---------------------------------------------------------------- facts */

/* One Stage II rewrite that made a new best. */
struct report_motif {
        const char *motif;
        const char *entry;  /* the experience entry that suggested it, or NULL */
        const char *source; /* "bank", "fallback", "random" */
        json_t *title;      /* the entry's title (a string) when the store has it */
        json_t *learned;    /* the title of an entry learned from it, when there is one */
        int64_t evaluation;
        double before_us, after_us;
};

/* Everything the three renderings share, gathered once. */
struct report_facts {
        struct episode_summary s;
        const struct report_context *ctx;
        char name[256];   /* the operator's directory name, safe for one line */
        const char *op;   /* the manifest's operator name */
        const char *path; /* op_path, or the record's dir */
        char date[32];
        double baseline_us, best_us, speedup;
        bool improved;
        double roofline_us, roofline_before, roofline_after; /* 0 when unknown */
        int64_t evaluations, budget, memo_hits, confirmations, seed;
        const char *strategy, *state, *error;
        /* best-so-far after each evaluation 1..evaluations, and its stage (1 or 2) */
        double *curve;
        int *curve_stage;
        bool *failed;
        size_t n_failed;
        struct report_motif *motifs;
        size_t n_motifs;
        double stage_gain[2]; /* product of the gains of each stage's new bests, 0: none */
        double stage_from[2], stage_to[2]; /* before its first new best, after its last */
        json_t *baseline_result, *best_result, *manifest; /* from the store, or NULL */
        double device_s, compile_s;
        size_t timed_results;
        double wall_s;
        json_int_t llm_tokens;
        bool has_llm_tokens;
};

static const char *str_or(const json_t *v, const char *fallback)
{
        const char *s = json_string_value(v);
        return s ? s : fallback;
}

static int64_t int_of(const json_t *v, int64_t fallback)
{
        if (json_is_integer(v))
                return (int64_t)json_integer_value(v);
        if (json_is_real(v))
                return (int64_t)json_real_value(v);
        return fallback;
}

static double num_of(const json_t *v)
{
        return json_is_number(v) ? json_number_value(v) : 0;
}

static const json_t *get(const json_t *obj, const char *key)
{
        return json_object_get(obj, key);
}

static void facts_release(struct report_facts *f)
{
        episode_summary_release(&f->s);
        free(f->curve);
        free(f->curve_stage);
        free(f->failed);
        for (size_t i = 0; i < f->n_motifs; i++) {
                json_decref(f->motifs[i].title);
                json_decref(f->motifs[i].learned);
        }
        free(f->motifs);
        json_decref(f->baseline_result);
        json_decref(f->best_result);
        json_decref(f->manifest);
}

/* The last component of a path, with characters that would break a line replaced. */
static void base_name(const char *path, char *buf, size_t size)
{
        const char *end = path + strlen(path), *start;
        size_t n;

        while (end > path && end[-1] == '/')
                end--;
        start = end;
        while (start > path && start[-1] != '/')
                start--;
        n = (size_t)(end - start);
        if (n == 0) {
                snprintf(buf, size, "operator");
                return;
        }
        if (n >= size)
                n = size - 1;
        for (size_t i = 0; i < n; i++)
                buf[i] = (unsigned char)start[i] < 0x20 || start[i] == 0x7f ? '?' : start[i];
        buf[n] = '\0';
}

static json_t *candidate_result(struct store *store, const char *identity)
{
        json_t *result = NULL;

        if (!store || !identity || store_candidate_get(store, identity, &result) < 0)
                return NULL;
        return result;
}

/* The manifest the results were measured with (ascendopt.json among the files), or NULL. */
static json_t *load_manifest(struct store *store, const json_t *files)
{
        const char *sha = json_string_value(get(files, "ascendopt.json"));
        void *data = NULL;
        size_t len = 0;
        json_t *doc;

        if (!store || !sha || store_blob_get(store, sha, &data, &len) < 0)
                return NULL;
        doc = json_loadb(data, len, 0, NULL);
        free(data);
        return doc;
}

/* The title of an experience entry, as a new string value, or NULL. */
static json_t *entry_title(struct store *store, const char *id)
{
        char key[SHA256_HEX_SIZE + 16];
        json_t *entry = NULL, *title;

        if (!store || !id || strlen(id) >= SHA256_HEX_SIZE)
                return NULL;
        snprintf(key, sizeof(key), "entry/%s", id);
        if (store_get_json(store, STORE_EXPERIENCE, key, &entry) < 0)
                return NULL;
        title = json_incref(json_object_get(entry, "title"));
        json_decref(entry);
        if (title && !json_is_string(title)) {
                json_decref(title);
                title = NULL;
        }
        return title;
}

/* The title of an entry the episode learned from motif, or NULL. */
static json_t *learned_title(struct store *store, const json_t *learned, const char *motif)
{
        const json_t *id;
        size_t i;

        if (!store || !motif)
                return NULL;
        json_array_foreach(learned, i, id)
        {
                char key[SHA256_HEX_SIZE + 16];
                json_t *entry = NULL, *title = NULL;

                if (!json_is_string(id) || strlen(json_string_value(id)) >= SHA256_HEX_SIZE)
                        continue;
                snprintf(key, sizeof(key), "entry/%s", json_string_value(id));
                if (store_get_json(store, STORE_EXPERIENCE, key, &entry) < 0)
                        continue;
                if (json_is_string(get(entry, "title")) &&
                    strcmp(str_or(get(entry, "motif"), ""), motif) == 0)
                        title = json_incref(json_object_get(entry, "title"));
                json_decref(entry);
                if (title)
                        return title;
        }
        return NULL;
}

/* Adds the timing fields of one stored result to the spend. */
static void add_timing(struct report_facts *f, const json_t *result)
{
        const json_t *run = get(result, "run_s"), *compile = get(result, "compile_s");

        if (!json_is_number(run) && !json_is_number(compile))
                return;
        f->device_s += num_of(run);
        f->compile_s += num_of(compile);
        f->timed_results++;
}

/*
 * Walks the trajectory once: the best-so-far curve over counted
 * evaluations, their stages, failed marks, the Stage II wins and (with a
 * store) the timing of every result measured afresh.
 */
static int walk_trajectory(struct report_facts *f, struct store *store)
{
        size_t n = (size_t)f->evaluations, filled = 0, i;
        double best = f->baseline_us;

        if (n) {
                f->curve = calloc(n, sizeof(*f->curve));
                f->curve_stage = calloc(n, sizeof(*f->curve_stage));
                f->failed = calloc(n, sizeof(*f->failed));
                if (!f->curve || !f->curve_stage || !f->failed)
                        return -ENOMEM;
        }
        f->motifs = calloc(f->s.n_rows + 1, sizeof(*f->motifs));
        if (!f->motifs)
                return -ENOMEM;

        /* Each point is the best after every row numbered up to it (memo hits included). */
        for (i = 0; i < f->s.n_rows; i++) {
                const struct episode_row *row = &f->s.rows[i];
                int64_t k = row->evaluation;
                bool ok = strcmp(row->status ?: "", "ok") == 0;
                bool memo = row->memo_hit;
                int stage = row->stage;
                double latency = row->latency_us;
                double before = best;

                for (; filled < n && (int64_t)filled + 1 < k; filled++)
                        f->curve[filled] = best;
                if (ok && row->new_best && latency > 0)
                        best = latency;
                if (k >= 1 && (size_t)k <= n && !memo) {
                        f->curve_stage[k - 1] = stage;
                        if (!ok && !f->failed[k - 1] && strcmp(row->status ?: "", "slow") != 0) {
                                f->failed[k - 1] = true;
                                f->n_failed++;
                        }
                }
                if (k >= 1 && (size_t)k <= n) {
                        f->curve[k - 1] = best;
                        if (filled < (size_t)k)
                                filled = (size_t)k;
                }
                if (ok && best < before && (stage == 1 || stage == 2)) {
                        if (f->stage_gain[stage - 1] == 0) {
                                f->stage_gain[stage - 1] = 1;
                                f->stage_from[stage - 1] = before;
                        }
                        f->stage_gain[stage - 1] *= before / best;
                        f->stage_to[stage - 1] = best;
                }
                if (stage == 2 && ok && best < before) {
                        struct report_motif *m = &f->motifs[f->n_motifs++];

                        m->motif = row->motif ?: row->technique ?: "?";
                        m->entry = row->entry;
                        m->source = row->source ?: "unknown";
                        m->evaluation = k;
                        m->before_us = before;
                        m->after_us = best;
                        m->title = entry_title(store, m->entry);
                        if (!m->title)
                                m->learned = learned_title(store, f->s.learned, m->motif);
                }
                if (store && !memo) {
                        json_t *result = candidate_result(store, row->identity);
                        add_timing(f, result);
                        json_decref(result);
                }
        }
        for (; filled < n; filled++)
                f->curve[filled] = best;
        /* a stage the trajectory did not say (a gap) follows its neighbour */
        for (i = 0; i < n; i++)
                if (!f->curve_stage[i])
                        f->curve_stage[i] = i ? f->curve_stage[i - 1] : 1;
        return 0;
}

static int gather(struct report_facts *f, struct store *store, const json_t *record,
                  const struct report_context *ctx, char *err, size_t err_size)
{
        const struct episode_summary *s = &f->s;
        int64_t started, finished;
        time_t date;
        struct tm tm;
        int r;

        r = episode_summary_read(record, &f->s);
        if (r < 0) {
                snprintf(err, err_size, "%s",
                         r == -ENOMEM ? "out of memory reading the episode record"
                                      : "the episode record is not a JSON object");
                return r;
        }
        f->ctx = ctx;
        f->op = s->operator_name ?: "unknown";
        f->path = ctx->op_path ? ctx->op_path : s->dir ?: "unknown";
        f->strategy = s->strategy ?: "full";
        f->state = s->state ?: "unknown";
        f->error = s->error_message;
        base_name(f->path, f->name, sizeof(f->name));

        f->baseline_us = s->baseline.latency_us;
        if (!(f->baseline_us > 0)) {
                snprintf(err, err_size,
                         "episode %s of %s: the record has no baseline latency (state %s%s%s); "
                         "there is nothing to compare with, so no report",
                         s->id ?: "?", f->path, f->state, f->error ? ": " : "",
                         f->error ? f->error : "");
                return -EINVAL;
        }
        f->best_us = s->best.latency_us;
        f->improved = f->best_us > 0 && f->best_us < f->baseline_us;
        if (!f->improved)
                f->best_us = f->baseline_us;
        f->speedup = f->baseline_us / f->best_us;

        f->evaluations = s->evaluations;
        if (f->evaluations < 0 || f->evaluations > 10000000)
                f->evaluations = 0;
        f->budget = s->budget;
        f->memo_hits = s->memo_hits;
        f->confirmations = s->confirmations;
        f->seed = s->seed;

        started = s->started;
        finished = s->finished;
        f->wall_s = started > 0 && finished > started ? (double)(finished - started) : 0;
        date = ctx->date ? ctx->date : (time_t)finished;
        if (!gmtime_r(&date, &tm) || !strftime(f->date, sizeof(f->date), "%Y-%m-%dT%H:%M:%SZ", &tm))
                snprintf(f->date, sizeof(f->date), "unknown");

        f->llm_tokens = s->llm_tokens;
        f->has_llm_tokens = s->has_llm_tokens;

        if (store) {
                f->baseline_result = candidate_result(store, s->baseline.identity);
                if (f->improved)
                        f->best_result = candidate_result(store, s->best.identity);
                f->manifest = load_manifest(store, s->baseline.files);
                add_timing(f, f->baseline_result);
        }
        /* roofline time is a property of the shapes, the same for every candidate */
        f->roofline_us = s->baseline.roofline_us;
        if (!(f->roofline_us > 0))
                f->roofline_us = num_of(get(f->baseline_result, "roofline_us"));
        if (f->roofline_us > 0) {
                f->roofline_before = f->roofline_us / f->baseline_us;
                f->roofline_after = f->roofline_us / f->best_us;
        }
        r = walk_trajectory(f, store);
        if (r < 0)
                snprintf(err, err_size, "out of memory rendering the report of %s", f->path);
        return r;
}

/* The per-case object of a stored result, or NULL. */
static const json_t *case_of(const json_t *result, const char *key, const char *name)
{
        const json_t *c;
        size_t i;

        json_array_foreach(get(result, key), i, c)
        {
                if (strcmp(str_or(get(c, "case"), ""), name) == 0)
                        return c;
        }
        return NULL;
}

static const char *or_unknown(const char *s)
{
        return s && *s ? s : "unknown";
}

/* ---------------------------------------------------------------- SVG */

#define SVG_W  900.0
#define SVG_H  540.0
#define PLOT_L 90.0
#define PLOT_R 870.0
#define PLOT_T 60.0
#define PLOT_B 440.0

#define COLOR_STAGE1 "#dbeafe"
#define COLOR_STAGE2 "#fde4c4"
#define COLOR_LINE   "#1d4ed8"
#define COLOR_FAIL   "#dc2626"
#define COLOR_BASE   "#6b7280"

/* A step of 1, 2 or 5 times a power of ten giving about target ticks over span. */
static double nice_step(double span, int target)
{
        double raw = span / target, p, m;

        if (!(raw > 0))
                return 1;
        p = pow(10, floor(log10(raw)));
        m = raw / p;
        return (m < 1.5 ? 1 : m < 3.5 ? 2 : m < 7.5 ? 5 : 10) * p;
}

struct plot {
        double x_max, y_max;
};

static double px(const struct plot *p, double x)
{
        return PLOT_L + (PLOT_R - PLOT_L) * x / p->x_max;
}

static double py(const struct plot *p, double y)
{
        return PLOT_B - (PLOT_B - PLOT_T) * y / p->y_max;
}

static void svg_stage_bands(struct strbuf *sb, const struct report_facts *f, const struct plot *p)
{
        size_t n = (size_t)f->evaluations, start = 0;

        for (size_t i = 1; i <= n; i++) {
                if (i < n && f->curve_stage[i] == f->curve_stage[start])
                        continue;
                /* evaluations start+1 .. i, each owning the unit around it */
                double x0 = px(p, (double)start + 0.5), x1 = px(p, (double)i + 0.5);
                if (x1 > PLOT_R)
                        x1 = PLOT_R;
                strbuf_printf(sb,
                              "<rect class=\"stage%d\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" "
                              "height=\"%.1f\" fill=\"%s\"/>\n",
                              f->curve_stage[start], x0, PLOT_T, x1 - x0, PLOT_B - PLOT_T,
                              f->curve_stage[start] == 2 ? COLOR_STAGE2 : COLOR_STAGE1);
                start = i;
        }
}

static void svg_axes(struct strbuf *sb, const struct plot *p)
{
        double ystep = nice_step(p->y_max, 5), xstep = nice_step(p->x_max, 10);

        if (xstep < 1)
                xstep = 1;
        strbuf_puts(sb, "<g class=\"grid\" stroke=\"#d1d5db\" stroke-width=\"1\">\n");
        for (double y = ystep; y <= p->y_max + ystep * 1e-9; y += ystep)
                strbuf_printf(sb, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>\n",
                              PLOT_L, py(p, y), PLOT_R, py(p, y));
        strbuf_puts(sb, "</g>\n");
        strbuf_printf(sb,
                      "<g class=\"axes\" stroke=\"#111827\" stroke-width=\"1.5\">\n"
                      "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>\n"
                      "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>\n</g>\n",
                      PLOT_L, PLOT_B, PLOT_R, PLOT_B, PLOT_L, PLOT_T, PLOT_L, PLOT_B);
        strbuf_puts(sb, "<g class=\"ticks\" font-size=\"13\" fill=\"#111827\">\n");
        for (double y = 0; y <= p->y_max + ystep * 1e-9; y += ystep) {
                strbuf_printf(sb,
                              "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
                              "stroke=\"#111827\"/>\n",
                              PLOT_L - 5, py(p, y), PLOT_L, py(p, y));
                strbuf_printf(sb, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">%g</text>\n",
                              PLOT_L - 8, py(p, y) + 4, y);
        }
        for (double x = 0; x <= p->x_max + 1e-9; x += xstep) {
                strbuf_printf(sb,
                              "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
                              "stroke=\"#111827\"/>\n",
                              px(p, x), PLOT_B, px(p, x), PLOT_B + 5);
                strbuf_printf(sb, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%g</text>\n",
                              px(p, x), PLOT_B + 20, x);
        }
        strbuf_puts(sb, "</g>\n");
        strbuf_printf(sb,
                      "<text class=\"xlabel\" x=\"%.1f\" y=\"%.1f\" font-size=\"14\" "
                      "text-anchor=\"middle\">evaluation</text>\n",
                      (PLOT_L + PLOT_R) / 2, PLOT_B + 42);
        strbuf_printf(sb,
                      "<text class=\"ylabel\" x=\"%.1f\" y=\"%.1f\" font-size=\"14\" "
                      "text-anchor=\"middle\" transform=\"rotate(-90 %.1f %.1f)\">"
                      "best latency (us)</text>\n",
                      30.0, (PLOT_T + PLOT_B) / 2, 30.0, (PLOT_T + PLOT_B) / 2);
}

static void svg_legend(struct strbuf *sb)
{
        double x = PLOT_L, y = SVG_H - 30;

        strbuf_printf(sb, "<g class=\"legend\" font-size=\"13\" fill=\"#111827\">\n");
        strbuf_printf(sb,
                      "<rect x=\"%.1f\" y=\"%.1f\" width=\"18\" height=\"12\" fill=\"%s\" "
                      "stroke=\"#9ca3af\"/><text x=\"%.1f\" y=\"%.1f\">Stage I (tiling)</text>\n",
                      x, y - 10, COLOR_STAGE1, x + 24, y);
        x += 150;
        strbuf_printf(sb,
                      "<rect x=\"%.1f\" y=\"%.1f\" width=\"18\" height=\"12\" fill=\"%s\" "
                      "stroke=\"#9ca3af\"/><text x=\"%.1f\" y=\"%.1f\">Stage II (kernel)</text>\n",
                      x, y - 10, COLOR_STAGE2, x + 24, y);
        x += 160;
        strbuf_printf(sb,
                      "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" "
                      "stroke-width=\"2.5\"/><text x=\"%.1f\" y=\"%.1f\">best so far</text>\n",
                      x, y - 4, x + 24, y - 4, COLOR_LINE, x + 30, y);
        x += 130;
        strbuf_printf(sb,
                      "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" "
                      "stroke-width=\"1.5\" stroke-dasharray=\"6 4\"/>"
                      "<text x=\"%.1f\" y=\"%.1f\">baseline</text>\n",
                      x, y - 4, x + 24, y - 4, COLOR_BASE, x + 30, y);
        x += 110;
        strbuf_printf(sb,
                      "<path d=\"M%.1f %.1fl8 8m0 -8l-8 8\" stroke=\"%s\" stroke-width=\"2\"/>"
                      "<text x=\"%.1f\" y=\"%.1f\">failed candidate</text>\n",
                      x + 4, y - 8, COLOR_FAIL, x + 20, y);
        strbuf_puts(sb, "</g>\n");
}

static char *render_svg(const struct report_facts *f)
{
        size_t n = (size_t)f->evaluations;
        struct plot p;
        struct strbuf sb = { 0 };
        double ystep;

        p.x_max = n ? (double)n : 1;
        p.x_max = ceil(p.x_max / nice_step(p.x_max, 10)) * nice_step(p.x_max, 10);
        if (p.x_max < n + 0.5)
                p.x_max = (double)n + 0.5;
        ystep = nice_step(f->baseline_us * 1.1, 5);
        p.y_max = ceil(f->baseline_us * 1.1 / ystep) * ystep;

        strbuf_printf(&sb,
                      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" "
                      "viewBox=\"0 0 %.0f %.0f\" font-family=\"DejaVu Sans, Helvetica, Arial, "
                      "sans-serif\">\n",
                      SVG_W, SVG_H, SVG_W, SVG_H);
        strbuf_puts(&sb, "<title>");
        sbuf_put_xml(&sb, f->name);
        strbuf_puts(&sb, ": best-so-far latency by evaluation</title>\n");
        strbuf_printf(&sb, "<rect width=\"%.0f\" height=\"%.0f\" fill=\"#ffffff\"/>\n", SVG_W,
                      SVG_H);
        strbuf_printf(&sb,
                      "<text class=\"title\" x=\"%.1f\" y=\"30\" font-size=\"18\" "
                      "font-weight=\"bold\" text-anchor=\"middle\">",
                      SVG_W / 2);
        sbuf_put_xml(&sb, f->name);
        strbuf_puts(&sb, " (");
        sbuf_put_xml(&sb, f->op);
        strbuf_puts(&sb, ") on ");
        sbuf_put_xml(&sb, or_unknown(f->ctx->platform));
        strbuf_puts(&sb, " ");
        sbuf_put_xml(&sb, or_unknown(f->ctx->backend));
        if (f->improved)
                strbuf_printf(&sb, ": %.1f \xe2\x86\x92 %.1f us, %.2fx</text>\n", f->baseline_us,
                              f->best_us, f->speedup);
        else
                strbuf_printf(&sb, ": %.1f us, no improvement</text>\n", f->baseline_us);

        if (n)
                svg_stage_bands(&sb, f, &p);
        svg_axes(&sb, &p);
        strbuf_printf(&sb,
                      "<line class=\"baseline\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
                      "stroke=\"%s\" stroke-width=\"1.5\" stroke-dasharray=\"6 4\"/>\n",
                      PLOT_L, py(&p, f->baseline_us), PLOT_R, py(&p, f->baseline_us), COLOR_BASE);
        strbuf_printf(&sb,
                      "<text class=\"baseline-label\" x=\"%.1f\" y=\"%.1f\" font-size=\"13\" "
                      "fill=\"%s\">baseline %.1f us</text>\n",
                      PLOT_L + 8, py(&p, f->baseline_us) - 6, COLOR_BASE, f->baseline_us);
        if (n) {
                strbuf_printf(&sb,
                              "<polyline class=\"best\" fill=\"none\" stroke=\"%s\" "
                              "stroke-width=\"2.5\" stroke-linejoin=\"round\" points=\"",
                              COLOR_LINE);
                for (size_t i = 0; i < n; i++)
                        strbuf_printf(&sb, "%s%.1f,%.1f", i ? " " : "", px(&p, (double)i + 1),
                                      py(&p, f->curve[i]));
                strbuf_puts(&sb, "\"/>\n");
                strbuf_printf(&sb, "<g class=\"wins\" fill=\"%s\">\n", COLOR_LINE);
                for (size_t i = 0; i < n; i++)
                        if (f->curve[i] < (i ? f->curve[i - 1] : f->baseline_us))
                                strbuf_printf(&sb, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"4\"/>\n",
                                              px(&p, (double)i + 1), py(&p, f->curve[i]));
                strbuf_puts(&sb, "</g>\n");
                strbuf_printf(&sb,
                              "<text class=\"best-label\" x=\"%.1f\" y=\"%.1f\" font-size=\"13\" "
                              "text-anchor=\"end\" fill=\"%s\">best %.1f us</text>\n",
                              px(&p, (double)n), py(&p, f->curve[n - 1]) - 8, COLOR_LINE,
                              f->curve[n - 1]);
                strbuf_printf(&sb, "<g class=\"failed\" stroke=\"%s\" stroke-width=\"2\">\n",
                              COLOR_FAIL);
                for (size_t i = 0; i < n; i++)
                        if (f->failed[i])
                                strbuf_printf(&sb, "<path d=\"M%.1f %.1fl8 8m0 -8l-8 8\"/>\n",
                                              px(&p, (double)i + 1) - 4, PLOT_B - 14);
                strbuf_puts(&sb, "</g>\n");
        } else {
                strbuf_printf(&sb,
                              "<text x=\"%.1f\" y=\"%.1f\" font-size=\"16\" text-anchor=\"middle\" "
                              "fill=\"#6b7280\">no evaluations</text>\n",
                              (PLOT_L + PLOT_R) / 2, (PLOT_T + PLOT_B) / 2);
        }
        svg_legend(&sb);
        strbuf_puts(&sb, "</svg>\n");
        return strbuf_detach(&sb);
}

/* ---------------------------------------------------------------- Markdown */

static void md_genes(struct strbuf *sb, const struct report_facts *f)
{
        const json_t *genome = f->s.best.genome;
        size_t i, changed = 0;

        if (!f->s.n_genes) {
                strbuf_puts(sb, "No tiling genes were found.\n\n");
                return;
        }
        strbuf_puts(sb, "| Gene | Where | Before | After |\n|---|---|---:|---:|\n");
        for (i = 0; i < f->s.n_genes; i++) {
                const struct episode_gene *gene = &f->s.genes[i];
                const char *file = gene->file ?: "?", *name = gene->name ?: "?";
                int64_t line = gene->line, before = gene->value;
                char key[512];
                const json_t *after;

                /* a move gene has no file: its value is the site a structural move took, 0 none */
                if (*file)
                        snprintf(key, sizeof(key), "%s:%" PRId64 ":%s", file, line, name);
                else
                        snprintf(key, sizeof(key), "%s", name);
                after = get(genome, key);
                strbuf_puts(sb, "| ");
                sbuf_put_md(sb, name);
                strbuf_puts(sb, " | ");
                if (*file) {
                        sbuf_put_md(sb, file);
                        strbuf_printf(sb, ":%" PRId64, line);
                } else {
                        strbuf_puts(sb, "structural tiling move (site, 0: none)");
                }
                strbuf_printf(sb, " | %" PRId64 " | ", before);
                if (json_is_integer(after) && json_integer_value(after) != before) {
                        strbuf_printf(sb, "**%" PRId64 "** |\n",
                                      (int64_t)json_integer_value(after));
                        changed++;
                } else {
                        strbuf_printf(sb, "%" PRId64 " (unchanged) |\n", before);
                }
        }
        strbuf_printf(sb, "\n%zu of %zu genes changed.\n\n", changed, f->s.n_genes);
}

static void md_motif_source(struct strbuf *sb, const struct report_motif *m)
{
        if (m->title) {
                strbuf_puts(sb, "entry \xe2\x80\x9c");
                sbuf_put_md(sb, json_string_value(m->title));
                strbuf_puts(sb, "\xe2\x80\x9d");
        } else if (m->entry) {
                strbuf_puts(sb, "entry ");
                sbuf_put_md(sb, m->entry);
        } else if (strcmp(m->source, "llm") == 0) {
                strbuf_puts(sb, "the LLM refiner");
        } else {
                strbuf_puts(sb, "no bank entry (");
                sbuf_put_md(sb, m->source);
                strbuf_puts(sb, ")");
        }
        if (m->learned) {
                strbuf_puts(sb, "; learned as \xe2\x80\x9c");
                sbuf_put_md(sb, json_string_value(m->learned));
                strbuf_puts(sb, "\xe2\x80\x9d");
        }
}

/* What one stage's new bests were worth, multiplied together. */
static void md_stage_gain(struct strbuf *sb, const struct report_facts *f, int stage)
{
        if (f->stage_gain[stage - 1] > 0)
                strbuf_printf(sb,
                              "Its new bests gained %.2fx in all (the first started from %.1f us, "
                              "the last reached %.1f us).\n\n",
                              f->stage_gain[stage - 1], f->stage_from[stage - 1],
                              f->stage_to[stage - 1]);
        else
                strbuf_puts(sb, "It found no new best.\n\n");
}

/* What the optional LLM did: its calls, and the new bests credited to it. */
static void md_llm(struct strbuf *sb, const struct report_facts *f)
{
        const struct episode_llm_usage *llm = &f->s.llm;
        const json_t *n;
        double best = f->baseline_us;
        const char *reason;
        bool any = false;
        size_t i;

        if (!llm->present)
                return;
        strbuf_puts(sb, "### The LLM\n\n");
        strbuf_printf(sb, "%" PRId64 " calls to ", llm->requests);
        sbuf_put_md(sb, llm->model ?: "the configured model");
        strbuf_printf(sb,
                      ", %" PRId64 " tokens; %" PRId64 " answers became candidates, %" PRId64
                      " were measured and %" PRId64 " made a new best.",
                      llm->total_tokens, llm->proposals, llm->evaluated, llm->won);
        json_object_foreach((json_t *)llm->discarded, reason, n)
        {
                strbuf_puts(sb, any ? ", " : " Discarded before measuring: ");
                sbuf_put_md(sb, reason);
                strbuf_printf(sb, " %" PRId64, int_of(n, 0));
                any = true;
        }
        strbuf_puts(sb, any ? ".\n" : "\n");
        if (llm->has_off) {
                strbuf_puts(sb, "It was left alone after: ");
                sbuf_put_md(sb, llm->off ?: "");
                strbuf_puts(sb, ".\n");
        }
        strbuf_puts(sb, "\n");
        for (i = 0; i < f->s.n_rows; i++) {
                const struct episode_row *row = &f->s.rows[i];
                double latency = row->latency_us;
                bool won = row->new_best && latency > 0 && strcmp(row->status ?: "", "ok") == 0;
                if (won && strcmp(row->source ?: "", "llm") == 0) {
                        strbuf_printf(sb,
                                      "- Evaluation %" PRId64
                                      ": the LLM's %s, %.1f \xe2\x86\x92 %.1f us (%.3fx)",
                                      row->evaluation,
                                      row->stage == 1 ? "tiling rewrite (Stage I)"
                                                      : "kernel rewrite (Stage II)",
                                      best, latency, best / latency);
                        if (row->llm_note) {
                                strbuf_puts(sb, ": ");
                                sbuf_put_md(sb, row->llm_note);
                        }
                        strbuf_puts(sb, "\n");
                }
                if (won)
                        best = latency;
        }
        strbuf_puts(sb, "\n");
}

/* The copies of shared kernel headers the best carries, and where each came from. */
static void md_shared_copies(struct strbuf *sb, const struct report_facts *f)
{
        const json_t *copies = json_object_get(f->s.record, "shared_copies");
        const char *path;
        json_t *from;
        bool any = false;

        json_object_foreach((json_t *)copies, path, from)
        {
                if (!json_object_get(f->s.best.files, path))
                        continue;
                if (!any)
                        strbuf_puts(sb, "The kernel's body lives in headers the repository shares "
                                        "with other operators. This operator now carries its own "
                                        "copies of them in op\\_kernel/, which its build finds "
                                        "before the shared ones; the other operators keep the "
                                        "originals:\n\n");
                any = true;
                strbuf_puts(sb, "- ");
                sbuf_put_md(sb, path);
                strbuf_puts(sb, ", a copy of ");
                sbuf_put_md(sb, json_string_value(from));
                strbuf_puts(sb, "\n");
        }
        if (any)
                strbuf_puts(sb, "\n");
}

static void md_changes(struct strbuf *sb, const struct report_facts *f)
{
        const struct episode_counts *stage1 = episode_summary_stage(&f->s, 1);
        const struct episode_counts *stage2 = episode_summary_stage(&f->s, 2);

        strbuf_puts(sb, "## Changes\n\n### Stage I: tiling\n\n");
        if (stage1)
                strbuf_printf(sb, "%" PRId64 " evaluations, %" PRId64 " new bests.\n\n",
                              stage1->evaluations, stage1->wins);
        md_stage_gain(sb, f, 1);
        md_genes(sb, f);
        strbuf_puts(sb, "### Stage II: kernel rewrites\n\n");
        if (stage2)
                strbuf_printf(sb, "%" PRId64 " evaluations, %" PRId64 " new bests.\n\n",
                              stage2->evaluations, stage2->wins);
        md_stage_gain(sb, f, 2);
        md_shared_copies(sb, f);
        if (!f->n_motifs) {
                strbuf_puts(sb, "No kernel rewrite produced a new best.\n\n");
                md_llm(sb, f);
                return;
        }
        strbuf_puts(sb, "| Evaluation | Motif | Suggested by | Latency (us) | Gain |\n"
                        "|---:|---|---|---|---:|\n");
        for (size_t i = 0; i < f->n_motifs; i++) {
                const struct report_motif *m = &f->motifs[i];

                strbuf_printf(sb, "| %" PRId64 " | ", m->evaluation);
                sbuf_put_md(sb, m->motif);
                strbuf_puts(sb, " | ");
                md_motif_source(sb, m);
                strbuf_printf(sb, " | %.1f \xe2\x86\x92 %.1f | %.3fx |\n", m->before_us,
                              m->after_us, m->before_us / m->after_us);
        }
        strbuf_puts(sb, "\n");
        md_llm(sb, f);
}

/* The ceiling of the best (else the baseline) from its stored profile; false when unknown. */
static bool best_ceiling(const struct report_facts *f, struct profile_ceiling *c)
{
        const json_t *r = f->best_result ? f->best_result : f->baseline_result;

        return r && profile_ceiling(get(r, "profile"), c) == 0;
}

/* What the roofline leaves out: the launch and the vector work (docs/results.md). */
static void md_ceiling(struct strbuf *sb, const struct report_facts *f)
{
        struct profile_ceiling c;

        if (!best_ceiling(f, &c))
                return;
        if (c.vector_bound)
                strbuf_printf(sb,
                              "Its vector instructions alone take %.1f us a core (bank conflicts "
                              "aside) against the roofline's %.1f us: with its launch of %.1f us, "
                              "no kernel doing that work passes %.1f%% of the roofline, and this "
                              "one has %.1f%% of that. Going further takes fewer or cheaper "
                              "vector instructions.\n\n",
                              c.vector_us, c.roofline_us, c.launch_us, 100 * c.fraction,
                              100 * c.reached);
        else
                strbuf_printf(sb,
                              "Its vector instructions take %.1f us a core (bank conflicts "
                              "aside), under the roofline's %.1f us: with its launch of %.1f us, "
                              "a kernel doing this work could reach %.1f%% of the roofline, and "
                              "this one has %.1f%% of that; the rest is in copies, overlap and "
                              "synchronisation.\n\n",
                              c.vector_us, c.roofline_us, c.launch_us, 100 * c.fraction,
                              100 * c.reached);
}

static void md_results(struct strbuf *sb, const struct report_facts *f)
{
        const json_t *c;
        size_t i;

        strbuf_puts(sb, "## Results\n\n");
        if (f->improved)
                strbuf_printf(sb, "**%.2fx faster**: %.1f us \xe2\x86\x92 %.1f us.\n\n", f->speedup,
                              f->baseline_us, f->best_us);
        else
                strbuf_printf(sb, "**No improvement**: the baseline's %.1f us stays the best.\n\n",
                              f->baseline_us);
        if (f->roofline_us > 0)
                strbuf_printf(sb,
                              "Roofline: %.1f us, so the operator runs at %.1f%% of roofline, "
                              "%.1f%% before.\n\n",
                              f->roofline_us, 100 * f->roofline_after, 100 * f->roofline_before);
        else
                strbuf_puts(sb, "Roofline: not recorded.\n\n");
        md_ceiling(sb, f);
        if (!f->baseline_result) {
                strbuf_puts(sb, "Per-case latencies: not available (no stored results).\n\n");
                return;
        }
        strbuf_puts(sb, "| Case | Baseline (us) | Best (us) | Speedup | Roofline (us) | "
                        "Roofline before | Roofline after |\n"
                        "|---|---:|---:|---:|---:|---:|---:|\n");
        json_array_foreach(get(f->baseline_result, "cases"), i, c)
        {
                const char *name = str_or(get(c, "case"), "?");
                const json_t *bc = f->best_result ? case_of(f->best_result, "cases", name) : c;
                double before = num_of(get(c, "latency_us")), after = num_of(get(bc, "latency_us"));
                double roof = num_of(get(c, "roofline_us"));

                strbuf_puts(sb, "| ");
                sbuf_put_md(sb, name);
                if (json_is_true(get(c, "bench")))
                        strbuf_puts(sb, " (bench)");
                strbuf_printf(sb, " | %.3f | ", before);
                if (after > 0)
                        strbuf_printf(sb, "%.3f | %.2fx | ", after, before / after);
                else
                        strbuf_puts(sb, "n/a | n/a | ");
                if (roof > 0 && before > 0)
                        strbuf_printf(sb, "%.3f | %.1f%% | ", roof, 100 * roof / before);
                else
                        strbuf_puts(sb, "n/a | n/a | ");
                if (roof > 0 && after > 0)
                        strbuf_printf(sb, "%.1f%% |\n", 100 * roof / after);
                else
                        strbuf_puts(sb, "n/a |\n");
        }
        strbuf_puts(sb, "\n");
}

static void md_shape(struct strbuf *sb, const json_t *c)
{
        const json_t *in, *dim;
        size_t i, j;

        json_array_foreach(get(c, "inputs"), i, in)
        {
                strbuf_puts(sb, i ? ", " : "");
                sbuf_put_md(sb, str_or(get(in, "name"), "?"));
                strbuf_puts(sb, " [");
                json_array_foreach(get(in, "shape"), j, dim)
                    strbuf_printf(sb, "%s%" PRId64, j ? "x" : "", int_of(dim, 0));
                strbuf_puts(sb, "] ");
                sbuf_put_md(sb, str_or(get(in, "dtype"), ""));
        }
}

static void md_correctness(struct strbuf *sb, const struct report_facts *f)
{
        const json_t *result = f->best_result ? f->best_result : f->baseline_result;
        const json_t *tolerance = get(f->manifest, "tolerance"), *v, *c;
        const char *key;
        size_t i;

        strbuf_puts(sb, "## Correctness\n\n");
        strbuf_printf(sb, "- Episode seed: %" PRId64 "", f->seed);
        if (json_is_integer(get(result, "seed")))
                strbuf_printf(sb, "; input seed of the stored result: %" PRId64,
                              int_of(get(result, "seed"), 0));
        strbuf_puts(sb, ".\n");
        if (!f->improved)
                strbuf_puts(sb, "- The best is the baseline itself, the correctness reference.\n");
        else if (f->confirmations > 0)
                strbuf_printf(sb,
                              "- The best was re-measured on a second seed before it was accepted "
                              "(%" PRId64 " confirmations in the episode).\n",
                              f->confirmations);
        else
                strbuf_puts(sb,
                            "- The best was **not** re-measured (no confirmations recorded).\n");
        if (json_object_size(tolerance)) {
                bool first = true;

                strbuf_puts(sb, "- Tolerances (from ascendopt.json):");
                json_object_foreach((json_t *)tolerance, key, v)
                {
                        strbuf_puts(sb, first ? " " : "; ");
                        sbuf_put_md(sb, key);
                        strbuf_printf(sb, " atol %g, rtol %g, mismatch fraction \xe2\x89\xa4 %g",
                                      num_of(get(v, "atol")), num_of(get(v, "rtol")),
                                      num_of(get(v, "max_mismatch_fraction")));
                        first = false;
                }
                strbuf_puts(sb, ".\n");
        } else if (f->manifest) {
                strbuf_puts(
                    sb, "- Tolerances: the defaults for each dtype (none in ascendopt.json).\n");
        } else {
                strbuf_puts(sb, "- Tolerances: not recorded.\n");
        }
        report_md_dtypes(sb, &f->s);
        if (!result) {
                strbuf_puts(sb, "- Per-case errors: not available (no stored results).\n\n");
                return;
        }
        strbuf_printf(sb, "\nMaximum errors of the %s against the reference:\n\n",
                      f->best_result ? "best" : "baseline");
        strbuf_puts(sb, "| Case | Inputs | Max abs err | Max rel err | Mismatches | Passed |\n"
                        "|---|---|---:|---:|---:|---|\n");
        json_array_foreach(get(result, "cases"), i, c)
        {
                const char *name = str_or(get(c, "case"), "?");
                const json_t *verdict = case_of(result, "correctness", name);

                strbuf_puts(sb, "| ");
                sbuf_put_md(sb, name);
                strbuf_puts(sb, " | ");
                md_shape(sb, c);
                if (verdict)
                        strbuf_printf(sb, " | %g | %g | %g | %s |\n",
                                      num_of(get(verdict, "max_abs_err")),
                                      num_of(get(verdict, "max_rel_err")),
                                      num_of(get(verdict, "mismatch_fraction")),
                                      json_is_true(get(verdict, "passed")) ? "yes" : "no");
                else
                        strbuf_puts(sb, " | n/a | n/a | n/a | reference |\n");
        }
        strbuf_puts(sb, "\n");
}

/* Sum of motifs.*.apply_errors, or -1 when no motif recorded any. */
static int64_t apply_errors(const struct episode_summary *s)
{
        int64_t sum = -1;

        for (size_t i = 0; i < s->n_motifs; i++)
                if (s->motifs[i].has_apply_errors)
                        sum = (sum < 0 ? 0 : sum) + s->motifs[i].apply_errors;
        return sum;
}

static void md_spend(struct strbuf *sb, const struct report_facts *f)
{
        const json_t *failures = f->s.failures, *v;
        const char *kind;
        int64_t total = 0, applies = apply_errors(&f->s);

        strbuf_puts(sb, "## Failures and spend\n\n");
        json_object_foreach((json_t *)failures, kind, v) total += int_of(v, 0);
        strbuf_printf(sb, "- Failed candidates: %" PRId64, total);
        if (total) {
                bool first = true;

                strbuf_puts(sb, " (");
                json_object_foreach((json_t *)failures, kind, v)
                {
                        strbuf_puts(sb, first ? "" : ", ");
                        sbuf_put_md(sb, kind);
                        strbuf_printf(sb, " %" PRId64, int_of(v, 0));
                        first = false;
                }
                strbuf_puts(sb, ")");
        }
        strbuf_puts(sb, ".\n");
        if (f->s.has_slow_or_remeasured)
                strbuf_printf(sb,
                              "- Stopped early as slow: %" PRId64
                              "; close new bests re-measured: %" PRId64 ".\n",
                              f->s.slow, f->s.remeasured);
        if (applies >= 0) {
                strbuf_printf(sb, "- Rewrites that failed to apply: %" PRId64, applies);
                for (size_t i = 0; i < f->s.n_motifs; i++) {
                        if (f->s.motifs[i].apply_errors > 0) {
                                strbuf_puts(sb, "; ");
                                sbuf_put_md(sb, f->s.motifs[i].name);
                                strbuf_printf(sb, " %" PRId64, f->s.motifs[i].apply_errors);
                        }
                }
                strbuf_puts(sb, ".\n");
        }
        strbuf_printf(sb,
                      "- Evaluations: %" PRId64 " of a budget of %" PRId64
                      "; memo hits (free): %" PRId64 "; confirmations: %" PRId64 ".\n",
                      f->evaluations, f->budget, f->memo_hits, f->confirmations);
        if (f->timed_results)
                strbuf_printf(sb,
                              "- Device time: %.1f s running, %.1f s compiling (%zu results).\n",
                              f->device_s, f->compile_s, f->timed_results);
        else
                strbuf_puts(sb, "- Device time: not recorded.\n");
        if (f->wall_s > 0)
                strbuf_printf(sb, "- Wall time: %.0f s, %.1f evaluations per hour.\n", f->wall_s,
                              (double)f->evaluations * 3600 / f->wall_s);
        else
                strbuf_puts(sb, "- Wall time: not recorded.\n");
        if (f->has_llm_tokens)
                strbuf_printf(sb, "- LLM tokens: %" PRId64 ".\n", (int64_t)f->llm_tokens);
        strbuf_puts(sb, "\n");
}

static void put_reproduce(struct strbuf *sb, const struct report_facts *f)
{
        strbuf_puts(sb, "ascendopt optimize ");
        sbuf_put_shell(sb, f->path);
        strbuf_printf(sb, " --budget %" PRId64 " --seed %" PRId64 " --strategy ", f->budget,
                      f->seed);
        sbuf_put_shell(sb, f->strategy);
}

static void md_row(struct strbuf *sb, const char *field, const char *value)
{
        strbuf_printf(sb, "| %s | ", field);
        sbuf_put_md(sb, value);
        strbuf_puts(sb, " |\n");
}

static char *render_markdown(const struct report_facts *f)
{
        const struct report_context *ctx = f->ctx;
        struct strbuf sb = { 0 };
        char buf[128];

        strbuf_puts(&sb, "# ascendopt report: ");
        sbuf_put_md(&sb, f->name);
        strbuf_puts(&sb, "\n\n| | |\n|---|---|\n");
        md_row(&sb, "Operator", f->op);
        md_row(&sb, "Path", f->path);
        md_row(&sb, "Source commit", or_unknown(ctx->source_commit));
        md_row(&sb, "Branch", or_unknown(ctx->branch));
        md_row(&sb, "Backend", or_unknown(ctx->backend));
        md_row(&sb, "Platform", or_unknown(ctx->platform));
        md_row(&sb, "Date", f->date);
        md_row(&sb, "Episode", f->s.id ?: "unknown");
        md_row(&sb, "Strategy", f->strategy);
        md_row(&sb, "State", f->state);
        snprintf(buf, sizeof(buf), "%" PRId64 " of %" PRId64 " evaluations used", f->evaluations,
                 f->budget);
        md_row(&sb, "Budget", buf);
        strbuf_puts(&sb, "\n");
        if (f->error) {
                strbuf_puts(&sb, "**The episode failed:** ");
                sbuf_put_md(&sb, f->error);
                strbuf_puts(&sb, "\n\n");
        }
        md_results(&sb, f);
        strbuf_puts(&sb, "## Trajectory\n\n![Best-so-far latency by evaluation](" REPORT_SVG_NAME
                         ")\n\n");
        strbuf_printf(&sb,
                      "%" PRId64 " evaluations; %zu failed (marked on the plot). Stage I rows are "
                      "shaded blue, Stage II rows orange.\n\n",
                      f->evaluations, f->n_failed);
        if (f->s.trajectory_dropped > 0)
                strbuf_printf(&sb,
                              "Its %" PRId64 " rows, one per candidate, were dropped "
                              "to keep the store under limits.store_max_bytes: the plot and the "
                              "lists below have only what the summary kept.\n\n",
                              f->s.trajectory_dropped);
        md_changes(&sb, f);
        md_correctness(&sb, f);
        md_spend(&sb, f);
        strbuf_puts(&sb, "## Reproduction\n\n```sh\n");
        put_reproduce(&sb, f);
        strbuf_puts(&sb, "\n```\n");
        return strbuf_detach(&sb);
}

/* ---------------------------------------------------------------- JSON */

static json_t *real_or_null(double v)
{
        return v > 0 && isfinite(v) ? json_real(v) : json_null();
}

static json_t *string_or_null(const char *s)
{
        return s ? json_string(s) : json_null();
}

/* json_object_set_new that remembers a failure. */
static void set(json_t *obj, const char *key, json_t *value, bool *oom)
{
        if (!value || json_object_set_new(obj, key, value) < 0)
                *oom = true;
}

static json_t *json_cases(const struct report_facts *f, bool *oom)
{
        json_t *cases = json_array();
        const json_t *c;
        size_t i;

        if (!cases) {
                *oom = true;
                return NULL;
        }
        json_array_foreach(get(f->baseline_result, "cases"), i, c)
        {
                const char *name = str_or(get(c, "case"), "?");
                const json_t *bc = f->best_result ? case_of(f->best_result, "cases", name) : c;
                const json_t *verdict = case_of(
                    f->best_result ? f->best_result : f->baseline_result, "correctness", name);
                double before = num_of(get(c, "latency_us")), after = num_of(get(bc, "latency_us"));
                double roof = num_of(get(c, "roofline_us"));
                json_t *o = json_object();

                if (!o || json_array_append_new(cases, o) < 0) {
                        *oom = true;
                        continue;
                }
                set(o, "case", json_string(name), oom);
                set(o, "bench", json_boolean(json_is_true(get(c, "bench"))), oom);
                set(o, "baseline_us", real_or_null(before), oom);
                set(o, "best_us", real_or_null(after), oom);
                set(o, "speedup", real_or_null(after > 0 ? before / after : 0), oom);
                set(o, "roofline_us", real_or_null(roof), oom);
                if (verdict) {
                        set(o, "max_abs_err", json_real(num_of(get(verdict, "max_abs_err"))), oom);
                        set(o, "max_rel_err", json_real(num_of(get(verdict, "max_rel_err"))), oom);
                        set(o, "mismatch_fraction",
                            json_real(num_of(get(verdict, "mismatch_fraction"))), oom);
                        set(o, "passed", json_boolean(json_is_true(get(verdict, "passed"))), oom);
                }
        }
        return cases;
}

static json_t *json_changes(const struct report_facts *f, bool *oom)
{
        const json_t *genome = f->s.best.genome;
        json_t *genes = json_array(), *motifs = json_array();
        size_t i;

        if (!genes || !motifs) {
                json_decref(genes);
                json_decref(motifs);
                *oom = true;
                return NULL;
        }
        for (i = 0; i < f->s.n_genes; i++) {
                const struct episode_gene *gene = &f->s.genes[i];
                const char *file = gene->file ?: "?", *name = gene->name ?: "?";
                int64_t line = gene->line, before = gene->value;
                char key[512];
                const json_t *after;

                snprintf(key, sizeof(key), "%s:%" PRId64 ":%s", file, line, name);
                after = get(genome, key);
                if (json_array_append_new(
                        genes,
                        json_pack("{s:s, s:s, s:I, s:I, s:I, s:b}", "name", name, "file", file,
                                  "line", (json_int_t)line, "before", (json_int_t)before, "after",
                                  (json_int_t)int_of(after, before), "changed",
                                  json_is_integer(after) && int_of(after, 0) != before)) < 0)
                        *oom = true;
        }
        for (i = 0; i < f->n_motifs; i++) {
                const struct report_motif *m = &f->motifs[i];
                json_t *o = json_object();

                if (!o || json_array_append_new(motifs, o) < 0) {
                        *oom = true;
                        continue;
                }
                set(o, "motif", json_string(m->motif), oom);
                set(o, "evaluation", json_integer(m->evaluation), oom);
                set(o, "entry", string_or_null(m->entry), oom);
                set(o, "title", m->title ? json_incref(m->title) : json_null(), oom);
                set(o, "learned_title", m->learned ? json_incref(m->learned) : json_null(), oom);
                set(o, "source", json_string(m->source), oom);
                set(o, "before_us", json_real(m->before_us), oom);
                set(o, "after_us", json_real(m->after_us), oom);
                set(o, "gain", json_real(m->before_us / m->after_us), oom);
        }
        return json_pack("{s:o, s:o}", "genes", genes, "motifs", motifs);
}

static char *render_json(const struct report_facts *f)
{
        const struct report_context *ctx = f->ctx;
        json_t *o = json_object(), *failures, *spend, *roofline, *correctness;
        struct strbuf sb = { 0 };
        int64_t applies = apply_errors(&f->s);
        bool oom = !o;
        char *text = NULL;

        if (oom)
                return NULL;
        set(o, "schema_version", json_integer(REPORT_SCHEMA_VERSION), &oom);
        set(o, "operator", json_string(f->op), &oom);
        set(o, "name", json_string(f->name), &oom);
        set(o, "op_path", json_string(f->path), &oom);
        set(o, "episode", string_or_null(f->s.id), &oom);
        set(o, "state", json_string(f->state), &oom);
        set(o, "error", string_or_null(f->error), &oom);
        set(o, "source_commit", string_or_null(ctx->source_commit), &oom);
        set(o, "branch", string_or_null(ctx->branch), &oom);
        set(o, "backend", string_or_null(ctx->backend), &oom);
        set(o, "platform", string_or_null(ctx->platform), &oom);
        set(o, "date", json_string(f->date), &oom);
        set(o, "strategy", json_string(f->strategy), &oom);
        set(o, "seed", json_integer(f->seed), &oom);
        set(o, "budget", json_integer(f->budget), &oom);
        set(o, "evaluations", json_integer(f->evaluations), &oom);
        set(o, "improved", json_boolean(f->improved), &oom);
        set(o, "baseline_us", json_real(f->baseline_us), &oom);
        set(o, "best_us", json_real(f->best_us), &oom);
        set(o, "speedup", json_real(f->speedup), &oom);
        roofline =
            json_pack("{s:o, s:o, s:o}", "roofline_us", real_or_null(f->roofline_us), "before",
                      real_or_null(f->roofline_before), "after", real_or_null(f->roofline_after));
        {
                struct profile_ceiling c;
                if (roofline && best_ceiling(f, &c))
                        set(roofline, "ceiling",
                            json_pack("{s:f, s:f, s:f, s:f, s:f, s:b}", "fraction", c.fraction,
                                      "reached", c.reached, "vector_us", c.vector_us, "launch_us",
                                      c.launch_us, "ceiling_us", c.ceiling_us, "vector_bound",
                                      c.vector_bound),
                            &oom);
        }
        set(o, "roofline", roofline, &oom);
        set(o, "cases", json_cases(f, &oom), &oom);
        set(o, "changes", json_changes(f, &oom), &oom);
        correctness =
            json_pack("{s:I, s:I, s:O*}", "seed", (json_int_t)f->seed, "confirmations",
                      (json_int_t)f->confirmations, "tolerance", get(f->manifest, "tolerance"));
        set(o, "correctness", correctness, &oom);
        set(o, "dtypes", report_json_dtypes(&f->s), &oom);
        failures = json_pack("{s:o, s:o}", "by_kind",
                             f->s.failures ? json_incref((json_t *)f->s.failures) : json_object(),
                             "apply_errors", applies >= 0 ? json_integer(applies) : json_null());
        set(o, "failures", failures, &oom);
        spend = json_pack(
            "{s:I, s:I, s:I, s:o, s:o, s:o, s:o}", "evaluations", (json_int_t)f->evaluations,
            "memo_hits", (json_int_t)f->memo_hits, "confirmations", (json_int_t)f->confirmations,
            "device_seconds", f->timed_results ? json_real(f->device_s) : json_null(),
            "compile_seconds", f->timed_results ? json_real(f->compile_s) : json_null(),
            "wall_seconds", real_or_null(f->wall_s), "evaluations_per_hour",
            f->wall_s > 0 ? json_real((double)f->evaluations * 3600 / f->wall_s) : json_null());
        if (spend && f->has_llm_tokens)
                set(spend, "llm_tokens", json_integer(f->llm_tokens), &oom);
        set(o, "spend", spend, &oom);
        put_reproduce(&sb, f);
        text = strbuf_detach(&sb);
        set(o, "reproduce", text ? json_string(text) : NULL, &oom);
        free(text);
        text = oom ? NULL : json_dumps(o, JSON_INDENT(2) | JSON_SORT_KEYS);
        json_decref(o);
        if (text) {
                /* json_dumps ends without a newline; files read better with one */
                size_t len = strlen(text);
                char *p = realloc(text, len + 2);

                if (!p) {
                        free(text);
                        return NULL;
                }
                p[len] = '\n';
                p[len + 1] = '\0';
                text = p;
        }
        return text;
}

/* ---------------------------------------------------------------- commit message */

/* Cuts s to at most max bytes without splitting a UTF-8 character. */
static size_t utf8_cut(const char *s, size_t max)
{
        size_t n = strlen(s);

        if (n <= max)
                return n;
        while (max > 0 && ((unsigned char)s[max] & 0xc0) == 0x80)
                max--;
        return max;
}

/*
 * "ascendopt: NAME 1.42x faster (312.4 -> 220.0 us, PLATFORM BACKEND)",
 * at most SUBJECT_MAX bytes: the name gives way first, then the rest.
 */
static void put_subject(struct strbuf *sb, const struct report_facts *f)
{
        char tail[SUBJECT_MAX * 2], where[64];
        size_t room, n, used;

        snprintf(where, sizeof(where), "%.*s %.*s", 24, or_unknown(f->ctx->platform), 12,
                 or_unknown(f->ctx->backend));
        where[utf8_cut(where, strlen(where))] = '\0';
        for (char *p = where; *p; p++)
                if ((unsigned char)*p < 0x20 || *p == 0x7f)
                        *p = '?';
        if (f->improved)
                snprintf(tail, sizeof(tail), " %.2fx faster (%.1f -> %.1f us, %s)", f->speedup,
                         f->baseline_us, f->best_us, where);
        else
                snprintf(tail, sizeof(tail), " no improvement (%.1f us, %s)", f->baseline_us,
                         where);
        room = SUBJECT_MAX - strlen("ascendopt: ");
        room = strlen(tail) + 8 < room ? room - strlen(tail) : 8;
        /* sb holds nothing else yet: the subject is the first thing written */
        strbuf_puts(sb, "ascendopt: ");
        n = utf8_cut(f->name, room);
        if (n < strlen(f->name)) {
                strbuf_putn(sb, f->name, utf8_cut(f->name, room - 3));
                strbuf_puts(sb, "...");
        } else {
                strbuf_puts(sb, f->name);
        }
        /* only absurd latencies make the tail itself too long: it is cut then */
        used = sb->len < SUBJECT_MAX ? sb->len : SUBJECT_MAX;
        strbuf_putn(sb, tail, utf8_cut(tail, SUBJECT_MAX - used));
        strbuf_puts(sb, "\n");
}

static char *render_commit_message(const struct report_facts *f)
{
        struct strbuf sb = { 0 };
        const json_t *genome = f->s.best.genome;
        size_t i;

        put_subject(&sb, f);
        strbuf_puts(&sb, "\n");
        for (i = 0; i < f->s.n_genes; i++) {
                const struct episode_gene *gene = &f->s.genes[i];
                const char *file = gene->file ?: "?", *gname = gene->name ?: "?";
                int64_t line = gene->line, before = gene->value;
                char key[512];
                const json_t *after;

                snprintf(key, sizeof(key), "%s:%" PRId64 ":%s", file, line, gname);
                after = get(genome, key);
                if (json_is_integer(after) && json_integer_value(after) != before)
                        strbuf_printf(
                            &sb, "- tiling: %s %" PRId64 " -> %" PRId64 " (%s:%" PRId64 ")\n",
                            gname, before, (int64_t)json_integer_value(after), file, line);
        }
        for (i = 0; i < f->n_motifs; i++)
                strbuf_printf(&sb, "- kernel: %s, %.1f -> %.1f us (%.3fx)\n", f->motifs[i].motif,
                              f->motifs[i].before_us, f->motifs[i].after_us,
                              f->motifs[i].before_us / f->motifs[i].after_us);
        if (f->n_failed || json_object_size(f->s.failures))
                strbuf_printf(&sb,
                              "- %" PRId64 " evaluations of %" PRId64 ", %" PRId64
                              " memo hits; see " REPORT_MARKDOWN_NAME "\n",
                              f->evaluations, f->budget, f->memo_hits);
        else
                strbuf_printf(
                    &sb, "- %" PRId64 " evaluations of %" PRId64 "; see " REPORT_MARKDOWN_NAME "\n",
                    f->evaluations, f->budget);
        return strbuf_detach(&sb);
}

/* ---------------------------------------------------------------- entry points */

int report_render(struct store *store, const json_t *record, const struct report_context *ctx,
                  struct report *ret_report, char *err, size_t err_size)
{
        struct report_facts f = { 0 };
        struct report report = { 0 };
        int r;

        if (!json_is_object(record) || !ctx || !ret_report) {
                snprintf(err, err_size, "report: the episode record is not a JSON object");
                return -EINVAL;
        }
        r = gather(&f, store, record, ctx, err, err_size);
        if (r < 0)
                goto out;
        report.markdown = render_markdown(&f);
        report.json = render_json(&f);
        report.svg = render_svg(&f);
        report.commit_message = render_commit_message(&f);
        if (!report.markdown || !report.json || !report.svg || !report.commit_message) {
                snprintf(err, err_size, "out of memory rendering the report of %s", f.path);
                report_free(&report);
                r = -ENOMEM;
                goto out;
        }
        *ret_report = report;
out:
        facts_release(&f);
        return r;
}

void report_free(struct report *report)
{
        if (!report)
                return;
        free(report->markdown);
        free(report->json);
        free(report->svg);
        free(report->commit_message);
        *report = (struct report){ 0 };
}
