/* SPDX-License-Identifier: MIT */
/*
 * Genes where real tiling programs hide their choices.  genes.c finds the
 * literals that stand alone ("TILE = 512;", "#define", SetBlockDim(8));
 * real programs mostly compute their sizes, so their knobs are literals
 * inside expressions and calls.  Found here, on cxx/'s expression trees:
 *
 *   - the argument of a generated setter, tiling.set_tileLength(512), or a
 *     literal factor of it, tiling.set_blockLength(total / 8): named
 *     "set_tileLength" and "set_blockLength factor #1";
 *   - the factors of a UB budget, tile = ubSize / BLOCK / 2 / NUM or
 *     ub / (2 * dtSize + 3 * sizeof(float)): buffer and live-tensor counts,
 *     "ub_budget factor #k of tile", and the arms of a count chosen by a
 *     condition, ubPartNum = cond ? 5 : 3, "ub_budget ubPartNum arm 1";
 *   - the multiple a core's share or a tile is rounded to, x / M * M or
 *     (x + M - 1) / M * M: one gene whose other literals (its twins)
 *     follow it, "share multiple of coreSize", "tile multiple of ...",
 *     "ub_budget alignment of ...", only ever coarser than written; M
 *     may be a local holding a block in elements, alignElems = 32 /
 *     typeLength, whose literal is then the gene;
 *   - the rows per tile a row-wise program hands its kernel,
 *     rowsPerTile = 1 or set_tileRows(1), searched from 1 to 64 rows.
 *
 * A literal with a fixed meaning is no gene: a sizeof or data-type width,
 * the division that turns bytes into elements (the last divisor of a UB
 * budget when it is 2, 4 or 8 and nothing else in the statement converts
 * bytes), an addend (+ 1, - 256), a flag, a key, a mode, a dimension, the
 * fields of a former/tail split.  A hard-coded core count is not a gene
 * here but the site of the cores_from_platform move (tiling-moves.c).
 */
#include "genes-internal.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define VALUE_CAP   (1ll << 24)
#define WORDS_MAX   12
#define NAMES_MAX   32
#define MARKS_MAX   32
#define FACTORS_MAX 16

/* ------------------------------------------------------------ names as words */

/* An identifier cut into lower-case words: tileLength, TILE_LENGTH and tile_length alike. */
struct words {
        char w[WORDS_MAX][24];
        size_t n;
};

static void split_words(const char *name, size_t len, struct words *ret)
{
        size_t k = 0;

        ret->n = 0;
        for (size_t i = 0; i <= len; i++) {
                char c = i < len ? name[i] : '_';
                bool cut = c == '_' || (i > 0 && isupper((unsigned char)c) &&
                                        (islower((unsigned char)name[i - 1]) ||
                                         (i + 1 < len && islower((unsigned char)name[i + 1]) &&
                                          isupper((unsigned char)name[i - 1]))));
                if (cut && k > 0 && ret->n < WORDS_MAX) {
                        ret->w[ret->n++][k] = '\0';
                        k = 0;
                }
                if (c != '_' && ret->n < WORDS_MAX && k + 1 < sizeof(ret->w[0]))
                        ret->w[ret->n][k++] = (char)tolower((unsigned char)c);
        }
}

static bool has_word(const struct words *w, const char *word)
{
        for (size_t i = 0; i < w->n; i++)
                if (strcmp(w->w[i], word) == 0)
                        return true;
        return false;
}

static bool has_any(const struct words *w, const char *const *list)
{
        for (size_t k = 0; list[k]; k++)
                if (has_word(w, list[k]))
                        return true;
        return false;
}

/* What a name says its value is. */
enum knob {
        KNOB_NONE,  /* a fact, a key, a flag: no choice */
        KNOB_SIZE,  /* elements or bytes of a tile or a block */
        KNOB_COUNT, /* tiles, buffers, loops, parts */
        KNOB_ROWS,  /* rows per tile of a row-wise program */
        KNOB_CORES, /* a core count: the cores_from_platform move's, not a gene here */
        KNOB_ALIGN, /* a multiple things are rounded to */
};

static const char *const fixed_words[] = {
        "key",    "type",  "dtype",  "mode",      "flag",    "dim",      "dims",     "axis",
        "total",  "shape", "eps",    "epsilon",   "scalar",  "offset",   "stride",   "pad",
        "format", "order", "db",     "workspace", "reserve", "reserved", "idx",      "index",
        "id",     "seed",  "value",  "attr",      "ratio",   "scale",    "start",    "end",
        "begin",  "tail",  "former", "last",      "big",     "small",    "remain",   "first",
        "is",     "has",   "need",   "use",       "enable",  "policy",   "strategy", NULL
};

static const char *const derived_words[] = {
        "loop", "loops", "times", "iter", "iters", "move", NULL
};

static enum knob knob_of(const char *name, size_t len)
{
        static const char *const core_words[] = { "core", "cores", "aiv", "aic", NULL };
        static const char *const core_counts[] = {
                "num", "number", "count", "cores", "used", NULL
        };
        static const char *const not_core_counts[] = {
                "per", "single", "each", "tail", "last",  "former", "big",  "small",
                "idx", "index",  "id",   "data", "len",   "length", "size", "loop",
                "row", "rows",   "tile", "elem", "block", "task",   NULL
        };
        static const char *const per_tile[] = { "tile", "loop", "ub",    "factor", "per",  "once",
                                                "step", "base", "batch", "chunk",  "time", NULL };
        static const char *const counts[] = { "num",   "number", "count",  "cnt",
                                              "parts", "part",   "buffer", "buffers",
                                              "split", "splits", "depth",  NULL };
        static const char *const sizes[] = { "tile",  "len",  "length", "size",  "elem", "elems",
                                             "bytes", "byte", "block",  "chunk", "base", "step",
                                             "batch", "ub",   "factor", "per",   "data", NULL };
        struct words w;

        if (len < 2)
                return KNOB_NONE;
        split_words(name, len, &w);
        if ((has_any(&w, core_words) && has_any(&w, core_counts) &&
             !has_any(&w, not_core_counts)) ||
            (has_word(&w, "block") && has_word(&w, "dim")))
                return KNOB_CORES;
        if ((has_word(&w, "row") || has_word(&w, "rows")) && has_any(&w, per_tile) &&
            !has_word(&w, "core") && !has_any(&w, fixed_words))
                return KNOB_ROWS;
        /* a loop count follows from the share and the tile; setting it is no choice */
        if (has_any(&w, fixed_words) || has_any(&w, derived_words) || w.n == 0)
                return KNOB_NONE;
        if (has_word(&w, "align") || has_word(&w, "alignment"))
                return KNOB_ALIGN;
        if (has_any(&w, counts))
                return KNOB_COUNT;
        if (has_any(&w, sizes))
                return KNOB_SIZE;
        return KNOB_NONE;
}

bool gene_name_is_core_count(const char *name, size_t len)
{
        return knob_of(name, len) == KNOB_CORES;
}

/* ------------------------------------------------------------ ranges */

static bool is_pow2(int64_t v)
{
        return v > 0 && (v & (v - 1)) == 0;
}

/* A count of buffers, live tensors, tiles or parts: 1 to 16 or four times, powers of two kept. */
static void count_range(struct gene *g)
{
        int64_t v = g->value;

        g->lo = 1;
        g->hi = v <= VALUE_CAP / 4 ? (4 * v > 16 ? 4 * v : 16) : VALUE_CAP;
        g->scale = is_pow2(v) ? GENE_POW2 : GENE_STEP;
}

/* Rows per tile: every count from 1 to 64 (or sixteen times what is written). */
static void rows_range(struct gene *g)
{
        int64_t v = g->value;

        g->lo = 1;
        g->hi = v <= VALUE_CAP / 16 ? (16 * v > 64 ? 16 * v : 64) : VALUE_CAP;
        g->scale = GENE_STEP;
}

/*
 * A multiple things are rounded to: only ever coarser (a finer one breaks
 * the 32-byte alignment it was written for), at powers of two up to 32
 * times; a multiple that is no power of two is left as written.
 */
static bool coarser_range(struct gene *g)
{
        if (!is_pow2(g->value) || g->value < 2)
                return false;
        g->scale = GENE_POW2;
        g->lo = g->value;
        g->hi = g->value <= VALUE_CAP / 32 ? g->value * 32 : VALUE_CAP;
        return true;
}

/* ------------------------------------------------------------ the finder's state */

struct statement {
        size_t first, last; /* through its ';' */
        size_t target;      /* the name assigned or the setter called, CXX_NONE for none */
        size_t expr_first, expr_last;
        bool setter;
};

struct hidden {
        const char *file;
        const struct cxx_file *f;
        struct gene **genes;
        size_t *n, first_new;
        char *err;
        size_t err_size;
        struct statement *stmts;
        size_t n_stmts;
        char ub_names[NAMES_MAX][64]; /* what GetCoreMemSize(UB, x) fills */
        size_t n_ub;
        char divisors[NAMES_MAX][64]; /* names a UB budget is divided by */
        size_t n_divisors;
        int rounding[MARKS_MAX]; /* this statement's divisions that round */
        size_t n_rounding;
};

/* The node of t at i, NULL for -1. */
#define NODE(t, i) cxx_expr_at((t), (i))

/* Whether token tok spells one of the n names (64 bytes apart from names). */
static bool tok_in_list(const struct cxx_file *f, size_t tok, const char *names, size_t n)
{
        for (size_t k = 0; k < n; k++)
                if (strlen(names + 64 * k) == cxx_tok_len(f, tok) &&
                    memcmp(names + 64 * k, cxx_tok_text(f, tok), cxx_tok_len(f, tok)) == 0)
                        return true;
        return false;
}

static void list_add(const struct cxx_file *f, size_t tok, char (*names)[64], size_t *n)
{
        if (*n < NAMES_MAX && cxx_tok_len(f, tok) < 64 && !tok_in_list(f, tok, names[0], *n))
                cxx_tok_copy(f, tok, names[(*n)++], 64);
}

/* Whether the literal at byte start is a gene of this file already, or one's twin. */
static bool taken(const struct hidden *h, size_t start)
{
        for (size_t i = h->first_new; i < *h->n; i++) {
                const struct gene *g = &(*h->genes)[i];
                if (g->start == start)
                        return true;
                for (size_t t = 0; t < g->n_twins; t++)
                        if (g->start + (size_t)g->twins[t].offset == start)
                                return true;
        }
        return false;
}

static struct gene *gene_at(const struct hidden *h, size_t start)
{
        for (size_t i = h->first_new; i < *h->n; i++)
                if ((*h->genes)[i].start == start)
                        return &(*h->genes)[i];
        return NULL;
}

/* Appends g for the literal at token tok (g's name, value, range and twins filled in). */
static int add_gene(struct hidden *h, struct gene *g, size_t tok)
{
        const struct token *t = &h->f->tokens.tokens[tok];
        struct gene *grown;

        if (*h->n >= GENES_MAX) {
                snprintf(h->err, h->err_size,
                         "%s: more than %d genes; mark the ones to tune with // @tune lo..hi",
                         h->file, GENES_MAX);
                return -E2BIG;
        }
        snprintf(g->file, sizeof(g->file), "%s", h->file);
        g->start = t->start;
        g->len = t->len;
        g->line = t->line;
        grown = realloc(*h->genes, (*h->n + 1) * sizeof(*grown));
        if (!grown)
                return -ENOMEM;
        *h->genes = grown;
        grown[(*h->n)++] = *g;
        return 0;
}

/* An integer literal's value, false for another token. */
static bool literal_value(const struct cxx_file *f, size_t tok, int64_t *ret)
{
        return cxx_tok_is_kind(f, tok, TOKEN_NUMBER) &&
               gene_parse_literal(cxx_tok_text(f, tok), cxx_tok_len(f, tok), ret);
}

/* Node i without the casts around it (parentheses leave no node). */
static int strip_casts(const struct cxx_expr_tree *t, int i)
{
        while (NODE(t, i) && NODE(t, i)->kind == CXX_EXPR_CAST)
                i = NODE(t, i)->a;
        return i;
}

/* Node i as a literal's token, or CXX_NONE. */
static size_t number_tok(const struct hidden *h, const struct cxx_expr_tree *t, int i)
{
        const struct cxx_expr *e = NODE(t, strip_casts(t, i));
        int64_t v;

        return e && e->kind == CXX_EXPR_NUMBER && literal_value(h->f, e->tok, &v) ? e->tok
                                                                                  : CXX_NONE;
}

static bool is_op(const struct hidden *h, const struct cxx_expr *e, const char *op)
{
        return cxx_expr_is(h->f, e, CXX_EXPR_BINARY, op);
}

static void target_name(const struct hidden *h, const struct statement *st, char *buf, size_t size)
{
        if (st->target == CXX_NONE)
                snprintf(buf, size, "line%u", h->f->tokens.tokens[st->first].line);
        else
                cxx_tok_copy(h->f, st->target, buf, size);
}

static struct words target_words(const struct hidden *h, const struct statement *st)
{
        struct words w = { .n = 0 };

        if (st->target != CXX_NONE)
                split_words(cxx_tok_text(h->f, st->target), cxx_tok_len(h->f, st->target), &w);
        return w;
}

/* Names g (cut at its 63 bytes: a long target name loses its end). */
static void name_gene(struct gene *g, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void name_gene(struct gene *g, const char *fmt, ...)
{
        va_list ap;

        va_start(ap, fmt);
        vsnprintf(g->name, sizeof(g->name), fmt, ap);
        va_end(ap);
}

/* ------------------------------------------------------------ UB capacities */

/* A name that holds a UB capacity: ubSize, maxUbSize, UB_SIZE, or what GetCoreMemSize(UB) fills. */
static bool is_ub_name(const struct hidden *h, size_t tok)
{
        static const char *const not_capacity[] = { "num",  "number", "count", "cnt",
                                                    "part", "parts",  "idx",   NULL };
        struct words w;

        if (tok_in_list(h->f, tok, h->ub_names[0], h->n_ub))
                return true;
        split_words(cxx_tok_text(h->f, tok), cxx_tok_len(h->f, tok), &w);
        return has_word(&w, "ub") && !has_any(&w, not_capacity);
}

/* Whether node i, read as a numerator, carries a UB capacity. */
static bool holds_ub(const struct hidden *h, const struct cxx_expr_tree *t, int i)
{
        const struct cxx_expr *e = NODE(t, i);

        if (!e)
                return false;
        switch (e->kind) {
        case CXX_EXPR_NAME:
                return is_ub_name(h, e->tok);
        case CXX_EXPR_CAST:
                return holds_ub(h, t, e->a);
        case CXX_EXPR_CALL:
                if (cxx_tok_eq(h->f, e->tok, "min") || cxx_tok_eq(h->f, e->tok, "max") ||
                    cxx_tok_eq(h->f, e->tok, "Min") || cxx_tok_eq(h->f, e->tok, "Max")) {
                        for (int a = e->b; a >= 0; a = NODE(t, a)->next)
                                if (holds_ub(h, t, a))
                                        return true;
                }
                return false;
        case CXX_EXPR_BINARY:
                if (is_op(h, e, "/") || is_op(h, e, "-") || is_op(h, e, "%"))
                        return holds_ub(h, t, e->a);
                if (is_op(h, e, "*") || is_op(h, e, "+"))
                        return holds_ub(h, t, e->a) || holds_ub(h, t, e->b);
                return false;
        case CXX_EXPR_TERNARY:
                return holds_ub(h, t, e->b) || holds_ub(h, t, e->c);
        default:
                return false;
        }
}

/* The names GetCoreMemSize(CoreMemType::UB, name) fills anywhere in the file. */
static void find_ub_names(struct hidden *h)
{
        const struct cxx_file *f = h->f;

        for (size_t i = 0; i < f->tokens.n; i++) {
                struct cxx_arg args[CXX_MAX_ARGS];
                size_t open = cxx_tok_next(f, i), n, name;
                if (!cxx_tok_eq(f, i, "GetCoreMemSize") || !cxx_tok_eq(f, open, "("))
                        continue;
                n = cxx_args_split(f, open, args, CXX_MAX_ARGS);
                if (n != 2 || !cxx_range_mentions(f, args[0].first, args[0].last, "UB", 2))
                        continue;
                name = args[1].last;
                if (name != CXX_NONE && cxx_tok_is_ident(f, name))
                        list_add(f, name, h->ub_names, &h->n_ub);
        }
}

/*
 * Whether token tok names the width of an element in bytes: sizeof,
 * typeSize, dtSize, dataTypeLength, byteNum, BYTES_PER_ELEM, elemSize (but
 * not a count of bytes such as partBytes).
 */
static bool is_width_name(const struct cxx_file *f, size_t tok)
{
        static const char *const types[] = { "type", "dtype", "dt", NULL };
        static const char *const sizes[] = { "size", "len", "length", "byte", "bytes", NULL };
        static const char *const bytes[] = { "byte", "bytes", NULL };
        static const char *const per[] = { "per", "num", "elem", "element", NULL };
        static const char *const elems[] = { "elem", "element", NULL };
        struct words w;

        split_words(cxx_tok_text(f, tok), cxx_tok_len(f, tok), &w);
        return has_word(&w, "sizeof") || (has_any(&w, types) && has_any(&w, sizes)) ||
               (has_any(&w, bytes) && has_any(&w, per)) ||
               (has_any(&w, elems) && has_any(&w, sizes));
}

/* Whether the statement converts bytes to elements some other way (sizeof, a type's width). */
static bool mentions_width(const struct hidden *h, const struct statement *st)
{
        for (size_t i = st->first; i <= st->last; i = cxx_tok_next(h->f, i))
                if (cxx_tok_is_ident(h->f, i) && is_width_name(h->f, i))
                        return true;
        return false;
}

/* ------------------------------------------------------------ the statements */

/* Skips "if (...)", "while (...)", "for (...)", "else" and "do" before a statement's own tokens. */
static size_t statement_start(const struct cxx_file *f, size_t first, size_t semi)
{
        for (;;) {
                size_t open = cxx_tok_next(f, first), close;
                if ((cxx_tok_eq(f, first, "if") || cxx_tok_eq(f, first, "while") ||
                     cxx_tok_eq(f, first, "for") || cxx_tok_eq(f, first, "switch")) &&
                    cxx_tok_eq(f, open, "(")) {
                        close = token_match(&f->tokens, open);
                        if (close >= semi)
                                return CXX_NONE; /* a loop header's ';' */
                        first = cxx_tok_next(f, close);
                        continue;
                }
                if (cxx_tok_eq(f, first, "else") || cxx_tok_eq(f, first, "do")) {
                        first = cxx_tok_next(f, first);
                        continue;
                }
                return first < semi ? first : CXX_NONE;
        }
}

/* The first '=' at the statement's top level, or a ',' there when comma is set; CXX_NONE. */
static size_t top_level(const struct cxx_file *f, size_t first, size_t last, const char *what)
{
        for (size_t i = first; i < last && i != CXX_NONE; i = cxx_tok_next(f, i)) {
                if (cxx_tok_eq(f, i, "(") || cxx_tok_eq(f, i, "[") || cxx_tok_eq(f, i, "{")) {
                        i = token_match(&f->tokens, i);
                        if (i >= last)
                                return CXX_NONE;
                        continue;
                }
                if (cxx_tok_eq(f, i, what))
                        return i;
        }
        return CXX_NONE;
}

/* A statement "[T] name = expr;" (the first declarator) or "obj.set_field(expr);", else false. */
static bool read_statement(const struct cxx_file *f, size_t first, size_t semi,
                           struct statement *st)
{
        struct cxx_call call;
        size_t eq, comma, before;

        memset(st, 0, sizeof(*st));
        st->first = first;
        st->last = semi;
        st->target = CXX_NONE;
        if (cxx_tok_eq(f, first, "return") || cxx_tok_eq(f, first, "case") ||
            cxx_tok_eq(f, first, "default") || f->tokens.tokens[first].in_directive)
                return false;
        if (cxx_stmt_call(f, first, semi, &call) && call.n_args == 1 &&
            call.args[0].first != CXX_NONE && cxx_tok_len(f, call.name) > 4 &&
            memcmp(cxx_tok_text(f, call.name), "set_", 4) == 0 && call.close < semi) {
                st->setter = true;
                st->target = call.name;
                st->expr_first = call.args[0].first;
                st->expr_last = call.args[0].last;
                return true;
        }
        eq = top_level(f, first, semi, "=");
        if (eq == CXX_NONE || eq == first)
                return false;
        before = cxx_tok_prev(f, eq);
        if (before == CXX_NONE || !cxx_tok_is_ident(f, before))
                return false;
        st->target = before;
        st->expr_first = cxx_tok_next(f, eq);
        comma = top_level(f, st->expr_first, semi, ",");
        st->expr_last = cxx_tok_prev(f, comma != CXX_NONE ? comma : semi);
        return st->expr_first < semi && st->expr_last != CXX_NONE &&
               st->expr_last >= st->expr_first;
}

/* Every statement of the file that assigns or calls a setter, outside directives. */
static int find_statements(struct hidden *h)
{
        const struct cxx_file *f = h->f;
        size_t cap = 0;

        for (size_t i = 0; i < f->tokens.n; i++) {
                struct statement st;
                size_t first;
                if (!cxx_tok_eq(f, i, ";") || f->tokens.tokens[i].in_directive)
                        continue;
                first = statement_start(f, cxx_stmt_first(f, i), i);
                if (first == CXX_NONE || !read_statement(f, first, i, &st))
                        continue;
                if (h->n_stmts == cap) {
                        struct statement *grown;
                        cap = cap ? 2 * cap : 64;
                        grown = realloc(h->stmts, cap * sizeof(*grown));
                        if (!grown)
                                return -ENOMEM;
                        h->stmts = grown;
                }
                h->stmts[h->n_stmts++] = st;
        }
        return 0;
}

/* ------------------------------------------------------------ rounding to a multiple */

/* The only integer literal among tokens [first, last], or CXX_NONE. */
static size_t sole_literal(const struct cxx_file *f, size_t first, size_t last)
{
        size_t found = CXX_NONE;

        for (size_t i = first; i <= last && i != CXX_NONE && i < f->tokens.n;
             i = cxx_tok_next(f, i)) {
                int64_t v;
                if (!cxx_tok_is_kind(f, i, TOKEN_NUMBER))
                        continue;
                if (found != CXX_NONE || !literal_value(f, i, &v))
                        return CXX_NONE;
                found = i;
        }
        return found;
}

/* The token at the same place in [first2, ...] as tok is in [first1, ...]. */
static size_t same_place(const struct cxx_file *f, size_t first1, size_t tok, size_t first2)
{
        size_t j = first2;

        for (size_t i = first1; i != tok && i < f->tokens.n; i = cxx_tok_next(f, i))
                j = cxx_tok_next(f, j);
        return j;
}

/*
 * Adds the literal at tok as a twin of the gene at lit.  A twin on another
 * line marks the gene unusable (n_twins past the most): a rewrite that
 * keeps the gene's line finds it there again, but not a twin elsewhere.
 */
static void add_twin(const struct hidden *h, struct gene *g, size_t lit, size_t tok, int64_t delta)
{
        const struct token *a = &h->f->tokens.tokens[lit], *b = &h->f->tokens.tokens[tok];

        if (g->n_twins < GENE_TWINS_MAX && a->line == b->line)
                g->twins[g->n_twins++] =
                    (struct gene_twin){ (long)b->start - (long)a->start, b->len, delta };
        else
                g->n_twins = GENE_TWINS_MAX + 1;
}

/* Whether node i's tokens spell [first, last]. */
static bool spells(const struct hidden *h, const struct cxx_expr_tree *t, int i, size_t first,
                   size_t last)
{
        const struct cxx_expr *e = NODE(t, i);

        return e && cxx_range_same(h->f, e->first, e->last, first, last);
}

/*
 * The literals in x, the numerator of (x + M - 1) / M * M, that move with
 * M: the M of "+ M - 1" or "+ (M - 1)", the M - 1 of "+ (M-1)" written as
 * one number.
 */
static void numerator_twins(const struct hidden *h, const struct cxx_expr_tree *t, int x,
                            const struct cxx_expr *m, size_t lit, struct gene *g)
{
        const struct cxx_expr *e = NODE(t, strip_casts(t, x)), *add = NULL;
        int64_t v;

        if (e && is_op(h, e, "-") && number_tok(h, t, e->b) != CXX_NONE &&
            cxx_tok_is_number(h->f, number_tok(h, t, e->b), "1")) {
                add = NODE(t, strip_casts(t, e->a));
                if (add && is_op(h, add, "+") && spells(h, t, add->b, m->first, m->last))
                        add_twin(h, g, lit, same_place(h->f, m->first, lit, NODE(t, add->b)->first),
                                 0);
                return;
        }
        if (!e || !is_op(h, e, "+"))
                return;
        add = NODE(t, e->b);
        if (number_tok(h, t, e->b) != CXX_NONE && literal_value(h->f, number_tok(h, t, e->b), &v) &&
            v == g->value - 1) {
                add_twin(h, g, lit, number_tok(h, t, e->b), -1);
        } else if (add && is_op(h, add, "-") && spells(h, t, add->a, m->first, m->last) &&
                   number_tok(h, t, add->b) != CXX_NONE &&
                   cxx_tok_is_number(h->f, number_tok(h, t, add->b), "1")) {
                add_twin(h, g, lit, same_place(h->f, m->first, lit, NODE(t, add->a)->first), 0);
        }
}

/* Whether any division inside node i divides by a core count (a core's share). */
static bool divides_by_cores(const struct hidden *h, const struct cxx_expr_tree *t, int i)
{
        const struct cxx_expr *e = NODE(t, i);

        if (!e)
                return false;
        if (is_op(h, e, "/")) {
                const struct cxx_expr *d = NODE(t, strip_casts(t, e->b));
                if (d && d->kind == CXX_EXPR_NAME &&
                    knob_of(cxx_tok_text(h->f, d->tok), cxx_tok_len(h->f, d->tok)) == KNOB_CORES)
                        return true;
        }
        return divides_by_cores(h, t, e->a) || divides_by_cores(h, t, e->b) ||
               divides_by_cores(h, t, e->c);
}

/* A comparison guarding the rounding, "x <= M ? x : x / M * M": its M, else CXX_NONE. */
static size_t guard_literal(const struct hidden *h, const struct cxx_expr_tree *t, int64_t value)
{
        static const char *const cmp[] = { "<", "<=", ">", ">=", NULL };
        const struct cxx_expr *root = NODE(t, t->root), *c;

        if (!root || root->kind != CXX_EXPR_TERNARY || !(c = NODE(t, root->a)))
                return CXX_NONE;
        for (size_t k = 0; cmp[k]; k++) {
                size_t lit;
                int64_t v;
                if (!is_op(h, c, cmp[k]))
                        continue;
                lit = number_tok(h, t, c->b) != CXX_NONE ? number_tok(h, t, c->b)
                                                         : number_tok(h, t, c->a);
                if (lit != CXX_NONE && literal_value(h->f, lit, &v) && v == value)
                        return lit;
        }
        return CXX_NONE;
}

/*
 * A multiple named by a local, "alignElems" of "uint32_t alignElems = 32 /
 * typeLength;": the literal of bytes its only assignment divides by an
 * element's width, else CXX_NONE.  Set coarser, it rounds every use of
 * the name to whole 512-byte bursts alike (a core's share and its tile).
 */
static size_t named_multiple(const struct hidden *h, size_t name)
{
        const struct statement *def = NULL;
        size_t lit, slash;

        for (size_t s = 0; s < h->n_stmts; s++) {
                const struct statement *st = &h->stmts[s];
                if (st->setter || st->target == CXX_NONE ||
                    cxx_tok_len(h->f, st->target) != cxx_tok_len(h->f, name) ||
                    memcmp(cxx_tok_text(h->f, st->target), cxx_tok_text(h->f, name),
                           cxx_tok_len(h->f, name)) != 0)
                        continue;
                if (def)
                        return CXX_NONE; /* assigned twice: not one multiple */
                def = st;
        }
        if (!def || def->expr_first == CXX_NONE)
                return CXX_NONE;
        lit = def->expr_first;
        slash = cxx_tok_next(h->f, lit);
        if (!cxx_tok_is_kind(h->f, lit, TOKEN_NUMBER) || !cxx_tok_eq(h->f, slash, "/") ||
            sole_literal(h->f, def->expr_first, def->expr_last) != lit ||
            cxx_tok_next(h->f, slash) != def->expr_last ||
            !cxx_tok_is_ident(h->f, def->expr_last) || !is_width_name(h->f, def->expr_last))
                return CXX_NONE;
        return lit;
}

/*
 * "x / M * M" and "(x + M - 1) / M * M" where x is a core's share or a
 * tile: M (a literal, or a bracket holding one literal such as
 * (ALIGN_NUM * 8)) is a gene and its copies are its twins.  M may also be
 * a local that holds a block's worth of elements (named_multiple): its
 * definition's literal is the gene, with no twins.
 */
static int find_rounding(struct hidden *h, const struct statement *st,
                         const struct cxx_expr_tree *t)
{
        static const char *const tile_words[] = { "tile", "tiling", "ub",   "loop", "row",
                                                  "rows", "chunk",  "part", NULL };
        static const char *const share_words[] = { "core", "share", "block", "per", NULL };
        struct words target = target_words(h, st);
        char name[64];
        int r = 0;

        for (size_t i = 0; i < t->n && r == 0; i++) {
                const struct cxx_expr *m = &t->nodes[i], *d, *m2;
                struct gene g = { 0 };
                size_t lit, lit2, guard;
                bool ub, share, named;
                if (!is_op(h, m, "*") || !(d = NODE(t, m->a)) || !is_op(h, d, "/") ||
                    !(m2 = NODE(t, m->b)) || !spells(h, t, d->b, m2->first, m2->last))
                        continue;
                lit = sole_literal(h->f, NODE(t, d->b)->first, NODE(t, d->b)->last);
                named = lit == CXX_NONE && NODE(t, strip_casts(t, d->b))->kind == CXX_EXPR_NAME;
                if (named)
                        lit = named_multiple(h, NODE(t, strip_casts(t, d->b))->tok);
                if (lit == CXX_NONE || taken(h, h->f->tokens.tokens[lit].start) ||
                    !literal_value(h->f, lit, &g.value) || !coarser_range(&g))
                        continue;
                ub = holds_ub(h, t, d->a);
                share = divides_by_cores(h, t, d->a) || has_any(&target, share_words);
                if (!ub && !share && !has_any(&target, tile_words))
                        continue;
                if (h->n_rounding < MARKS_MAX)
                        h->rounding[h->n_rounding++] = (int)(d - t->nodes);
                if (!named) {
                        lit2 = same_place(h->f, NODE(t, d->b)->first, lit, m2->first);
                        add_twin(h, &g, lit, lit2, 0);
                        numerator_twins(h, t, d->a, NODE(t, d->b), lit, &g);
                        guard = guard_literal(h, t, g.value);
                        if (guard != CXX_NONE)
                                add_twin(h, &g, lit, guard, 0);
                }
                if (g.n_twins > GENE_TWINS_MAX)
                        continue;
                target_name(h, st, name, sizeof(name));
                name_gene(&g, "%s of %s",
                          ub      ? "ub_budget alignment"
                          : share ? "share multiple"
                                  : "tile multiple",
                          name);
                r = add_gene(h, &g, lit);
        }
        return r;
}

/* ------------------------------------------------------------ UB budget factors */

/*
 * The literal factors of a divisor: d itself, each factor of a product, and
 * the factors of each product in a sum (2 * dtSize + 3 * sizeof(float)); a
 * bare addend is no factor.  Names met are the divisors whose definitions
 * may hold counts.
 */
static void divisor_factors(struct hidden *h, const struct cxx_expr_tree *t, int i, bool in_sum,
                            size_t *lits, size_t *n)
{
        const struct cxx_expr *e = NODE(t, strip_casts(t, i));

        if (!e)
                return;
        if (e->kind == CXX_EXPR_NUMBER) {
                if (!in_sum && *n < FACTORS_MAX)
                        lits[(*n)++] = e->tok;
        } else if (e->kind == CXX_EXPR_NAME) {
                if (!in_sum)
                        list_add(h->f, e->tok, h->divisors, &h->n_divisors);
        } else if (is_op(h, e, "*")) {
                divisor_factors(h, t, e->a, false, lits, n);
                divisor_factors(h, t, e->b, false, lits, n);
        } else if (is_op(h, e, "+")) {
                divisor_factors(h, t, e->a, true, lits, n);
                divisor_factors(h, t, e->b, true, lits, n);
        }
}

static bool is_rounding(const struct hidden *h, int d)
{
        for (size_t k = 0; k < h->n_rounding; k++)
                if (h->rounding[k] == d)
                        return true;
        return false;
}

/* Whether division d lies inside another division of the budget (is not its last divisor). */
static bool inside_budget(const struct hidden *h, const struct cxx_expr_tree *t, int d)
{
        const struct cxx_expr *e = &t->nodes[d];

        for (size_t i = 0; i < t->n; i++) {
                const struct cxx_expr *o = &t->nodes[i];
                if ((int)i != d && is_op(h, o, "/") && !is_rounding(h, (int)i) &&
                    holds_ub(h, t, o->a) && o->first <= e->first && o->last >= e->last)
                        return true;
        }
        return false;
}

/*
 * The literal factors of every divisor of a UB capacity in the statement,
 * less a last divisor of 2, 4 or 8 that turns bytes into elements.
 */
static int find_ub_factors(struct hidden *h, const struct statement *st,
                           const struct cxx_expr_tree *t)
{
        struct words target = target_words(h, st);
        bool bytes_out = has_word(&target, "byte") || has_word(&target, "bytes");
        bool width = mentions_width(h, st);
        char name[64];
        unsigned ordinal = 0;
        int r = 0;

        for (size_t i = 0; i < t->n && r == 0; i++) {
                const struct cxx_expr *d = &t->nodes[i];
                size_t lits[FACTORS_MAX], n = 0;
                if (!is_op(h, d, "/") || is_rounding(h, (int)i) || !holds_ub(h, t, d->a))
                        continue;
                divisor_factors(h, t, d->b, false, lits, &n);
                for (size_t k = 0; k < n && r == 0; k++) {
                        struct gene g = { 0 };
                        if (taken(h, h->f->tokens.tokens[lits[k]].start) ||
                            !literal_value(h->f, lits[k], &g.value) || g.value < 2)
                                continue;
                        /* "ub / 2 / 4" with nothing else to make elements of bytes: 4 is a width */
                        if (!width && !bytes_out && number_tok(h, t, d->b) == lits[k] &&
                            (g.value == 2 || g.value == 4 || g.value == 8) &&
                            !inside_budget(h, t, (int)i))
                                continue;
                        count_range(&g);
                        target_name(h, st, name, sizeof(name));
                        name_gene(&g, "ub_budget factor #%u of %s", ++ordinal, name);
                        r = add_gene(h, &g, lits[k]);
                }
        }
        return r;
}

/* "ubPartNum = cond ? 5 : 3;" for a name a UB budget is divided by: each arm a count. */
static int find_ternary_counts(struct hidden *h, const struct statement *st,
                               const struct cxx_expr_tree *t)
{
        const struct cxx_expr *root = NODE(t, strip_casts(t, t->root));
        int arms[2], r = 0;
        char name[64];

        /* byteNum = fp32 ? 4 : 2 is the data's width, not a count */
        if (st->setter || st->target == CXX_NONE || !root || root->kind != CXX_EXPR_TERNARY ||
            !tok_in_list(h->f, st->target, h->divisors[0], h->n_divisors) ||
            is_width_name(h->f, st->target))
                return 0;
        arms[0] = root->b;
        arms[1] = root->c;
        for (int k = 0; k < 2 && r == 0; k++) {
                size_t lit = number_tok(h, t, arms[k]);
                struct gene g = { 0 };
                if (lit == CXX_NONE || taken(h, h->f->tokens.tokens[lit].start) ||
                    !literal_value(h->f, lit, &g.value) || g.value < 1)
                        continue;
                count_range(&g);
                target_name(h, st, name, sizeof(name));
                name_gene(&g, "ub_budget %s arm %d", name, k + 1);
                r = add_gene(h, &g, lit);
        }
        return r;
}

/* ------------------------------------------------------------ setters and rows */

/* The range of a literal whose name says what it is; false when it is no choice. */
static bool knob_range(enum knob knob, struct gene *g)
{
        if (g->value < 1 || (g->value == 1 && knob != KNOB_COUNT && knob != KNOB_ROWS))
                return false;
        switch (knob) {
        case KNOB_SIZE:
                gene_infer_range(g, false);
                return true;
        case KNOB_COUNT:
                count_range(g);
                return true;
        case KNOB_ROWS:
                rows_range(g);
                return true;
        case KNOB_ALIGN:
                return coarser_range(g);
        default:
                return false;
        }
}

/* Whether tokens of node e name a byte count (partBytes, BYTES_PER_ROW). */
static bool mentions_bytes(const struct hidden *h, const struct cxx_expr *e)
{
        for (size_t i = e->first; i <= e->last && i < h->f->tokens.n; i = cxx_tok_next(h->f, i)) {
                struct words w;
                if (!cxx_tok_is_ident(h->f, i))
                        continue;
                split_words(cxx_tok_text(h->f, i), cxx_tok_len(h->f, i), &w);
                if (has_word(&w, "byte") || has_word(&w, "bytes"))
                        return true;
        }
        return false;
}

/* The literal factors of a product or quotient chain: "total / 8", "BLOCK * 64". */
static void chain_factors(const struct hidden *h, const struct cxx_expr_tree *t, int i,
                          size_t *lits, size_t *n)
{
        const struct cxx_expr *e = NODE(t, strip_casts(t, i));

        if (!e)
                return;
        if (e->kind == CXX_EXPR_NUMBER && *n < FACTORS_MAX)
                lits[(*n)++] = e->tok;
        else if (is_op(h, e, "*") || is_op(h, e, "/")) {
                chain_factors(h, t, e->a, lits, n);
                chain_factors(h, t, e->b, lits, n);
        }
}

/*
 * tiling.set_field(LIT): a gene named set_field with the range its name
 * gives; set_field(expr): each literal factor of expr a count, unless expr
 * is a UB budget (find_ub_factors took it).
 */
static int find_setter(struct hidden *h, const struct statement *st, const struct cxx_expr_tree *t)
{
        const char *field = cxx_tok_text(h->f, st->target) + 4;
        size_t field_len = cxx_tok_len(h->f, st->target) - 4, lits[FACTORS_MAX], n = 0;
        enum knob knob = knob_of(field, field_len);
        const struct cxx_expr *root = NODE(t, strip_casts(t, t->root));
        struct words w;
        bool width = mentions_width(h, st);
        int r = 0;

        if (knob == KNOB_NONE || knob == KNOB_CORES)
                return 0;
        if (number_tok(h, t, t->root) != CXX_NONE) {
                size_t lit = number_tok(h, t, t->root);
                struct gene g = { 0 };
                if (taken(h, h->f->tokens.tokens[lit].start) ||
                    !literal_value(h->f, lit, &g.value) || !knob_range(knob, &g))
                        return 0;
                name_gene(&g, "set_%.*s", (int)field_len, field);
                return add_gene(h, &g, lit);
        }
        if (holds_ub(h, t, t->root))
                return 0;
        split_words(field, field_len, &w);
        chain_factors(h, t, t->root, lits, &n);
        for (size_t k = 0; k < n && r == 0; k++) {
                struct gene g = { 0 };
                if (taken(h, h->f->tokens.tokens[lits[k]].start) ||
                    !literal_value(h->f, lits[k], &g.value) || g.value < 2)
                        continue;
                /* "set_len(bytes / 4)": the width of the type, unless the field is bytes */
                if (!width && !has_word(&w, "byte") && !has_word(&w, "bytes") && root &&
                    is_op(h, root, "/") && number_tok(h, t, root->b) == lits[k] &&
                    (g.value == 2 || g.value == 4 || g.value == 8) &&
                    mentions_bytes(h, NODE(t, root->a)))
                        continue;
                count_range(&g);
                name_gene(&g, "set_%.*s factor #%zu", (int)field_len, field, k + 1);
                r = add_gene(h, &g, lits[k]);
        }
        return r;
}

/*
 * Whether the file sets name more than once ("rowPerTime = 1;" in one of
 * several branches, each with its own count) or changes it other than by
 * "=" (numRow *= d: an accumulator): then a literal it takes is no choice.
 */
static bool set_elsewhere(const struct cxx_file *f, size_t name)
{
        static const char *const ops[] = { "*=", "+=", "-=", "/=", "++", "--", NULL };
        unsigned assignments = 0;

        for (size_t i = 0; i < f->tokens.n; i++) {
                size_t nx = cxx_tok_next(f, i), pv = cxx_tok_prev(f, i);
                if (!cxx_tok_is_ident(f, i) || cxx_tok_len(f, i) != cxx_tok_len(f, name) ||
                    memcmp(cxx_tok_text(f, i), cxx_tok_text(f, name), cxx_tok_len(f, i)) != 0)
                        continue;
                if (cxx_tok_eq(f, nx, "=") && ++assignments > 1)
                        return true;
                for (size_t k = 0; ops[k]; k++)
                        if (cxx_tok_eq(f, nx, ops[k]) ||
                            (k >= 4 && pv != CXX_NONE && cxx_tok_eq(f, pv, ops[k])))
                                return true;
        }
        return false;
}

/*
 * Whether the statement is the body of an "if" that tests what it sets:
 * "if (rows > 4095) rows = 4095;", braced or not, is a clamp, not a choice.
 */
static bool clamps(const struct hidden *h, const struct statement *st)
{
        const struct cxx_file *f = h->f;
        size_t close = cxx_tok_prev(f, st->first), open;

        if (close != CXX_NONE && cxx_tok_eq(f, close, "{"))
                close = cxx_tok_prev(f, close);
        if (close == CXX_NONE || !cxx_tok_eq(f, close, ")") ||
            (open = cxx_bracket_open(f, close)) == CXX_NONE ||
            !cxx_tok_eq(f, cxx_tok_prev(f, open), "if"))
                return false;
        return cxx_range_mentions(f, open, close, cxx_tok_text(f, st->target),
                                  cxx_tok_len(f, st->target));
}

/* "rowsPerTile = 1;": rows per tile from 1 to 64; a constant genes.c found gets that range. */
static int find_rows(struct hidden *h, const struct statement *st, const struct cxx_expr_tree *t)
{
        size_t lit = number_tok(h, t, t->root);
        struct gene g = { 0 }, *found;

        if (st->setter || st->target == CXX_NONE || lit == CXX_NONE ||
            knob_of(cxx_tok_text(h->f, st->target), cxx_tok_len(h->f, st->target)) != KNOB_ROWS ||
            !literal_value(h->f, lit, &g.value) || g.value < 1 || set_elsewhere(h->f, st->target) ||
            clamps(h, st))
                return 0;
        found = gene_at(h, h->f->tokens.tokens[lit].start);
        if (found) {
                if (!found->marked)
                        rows_range(found);
                return 0;
        }
        if (taken(h, h->f->tokens.tokens[lit].start))
                return 0;
        rows_range(&g);
        cxx_tok_copy(h->f, st->target, g.name, sizeof(g.name));
        return add_gene(h, &g, lit);
}

/* ------------------------------------------------------------ the finder */

int genes_find_hidden(const char *file, const struct cxx_file *f, struct gene **genes, size_t *n,
                      size_t first_new, char *err, size_t err_size)
{
        struct hidden h = { .file = file,
                            .f = f,
                            .genes = genes,
                            .n = n,
                            .first_new = first_new,
                            .err = err,
                            .err_size = err_size };
        int r;

        find_ub_names(&h);
        r = find_statements(&h);
        for (int pass = 0; pass < 2 && r == 0; pass++) {
                for (size_t s = 0; s < h.n_stmts && r == 0; s++) {
                        const struct statement *st = &h.stmts[s];
                        struct cxx_expr_tree t;
                        int p = cxx_expr_parse(f, st->expr_first, st->expr_last, &t);
                        if (p == -ENOMEM)
                                r = p;
                        if (p < 0)
                                continue;
                        h.n_rounding = 0;
                        if (pass == 1) {
                                /* the divisors are all known once every budget was read */
                                r = find_ternary_counts(&h, st, &t);
                        } else {
                                r = find_rounding(&h, st, &t);
                                if (r == 0)
                                        r = find_ub_factors(&h, st, &t);
                                if (r == 0 && st->setter)
                                        r = find_setter(&h, st, &t);
                                if (r == 0)
                                        r = find_rows(&h, st, &t);
                        }
                        cxx_expr_tree_release(&t);
                }
        }
        free(h.stmts);
        return r;
}
