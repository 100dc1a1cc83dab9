/* SPDX-License-Identifier: MIT */
/*
 * Stage I's genes: the integer literals of a tiling program that are worth
 * tuning, found on tokens (initialisers, #define values, SetBlockDim
 * arguments, or explicit @tune markers), each with a range inferred from
 * its value, and the rewrite that sets them.
 */
#include "optimizer.h"
#include "genes-internal.h"

#include "common/common.h"
#include "cxx/cxx.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#define FILE_MAX_BYTES (1u << 20)
#define VALUE_CAP      (1ll << 24)

/* Parses an integer literal token (decimal or hex, separators, u/l suffixes). */
static bool parse_integer(const char *s, size_t len, int64_t *ret)
{
        char digits[64];
        size_t n = 0;
        char *end;
        long long v;

        for (size_t i = 0; i < len; i++) {
                if (s[i] == '\'')
                        continue;
                if (n + 1 >= sizeof(digits))
                        return false;
                digits[n++] = s[i];
        }
        while (n && strchr("uUlL", digits[n - 1]))
                n--;
        digits[n] = '\0';
        if (!n || strpbrk(digits, ".pP") || (strpbrk(digits, "eE") && !strpbrk(digits, "xX")))
                return false;
        if (digits[0] == '0' && n > 1 && (digits[1] == 'b' || digits[1] == 'B'))
                return false;
        v = strtoll(digits, &end, 0);
        if (*end)
                return false;
        *ret = v;
        return true;
}

static bool is_pow2(int64_t v)
{
        return v > 0 && (v & (v - 1)) == 0;
}

/*
 * A range for an unmarked literal, from a sixteenth to sixteen times its
 * value.  A small power of two (cores, buffers) stays a power of two: 2^k
 * cores split a 2^n tensor into shares that keep 512-byte alignment, which
 * the 910B rewards, and every integer would hide those few values among
 * many.  A larger size (elements, bytes) is searched at every multiple of
 * 32, the granularity of a 32-byte UB block, since the best tile is
 * usually the largest that fits the UB rather than a power of two.  A count
 * (TILE_NUM = 64) is not a size: 32-element steps would never reach the 8
 * tiles that may be the best.  A power-of-two count stays a power of two,
 * so that it cuts a power-of-two share into aligned tiles; another is
 * searched at every integer, down to 1: the best tile is usually the
 * largest the UB holds, and a count written for small tiles (TILE_NUM =
 * 700 for tiles of 6 KB) may be 30 or 60 times too many, far below a
 * sixteenth.  A power-of-two count of tiles goes down to 1 as well
 * (bias_add_grad's TILE_NUM = 512 cuts a core's 342 rows into one-row
 * tiles; 8 is its best).  Not so a count of cores: below a quarter of those written
 * most of the chip idles.  Other values are searched at every integer
 * from a quarter to four times.
 */
static void infer_range(struct gene *g, bool count)
{
        int64_t v = g->value;

        if (is_pow2(v) || v % 32 == 0) {
                g->lo = v >= 16 ? v / 16 : 1;
                g->hi = v <= VALUE_CAP / 16 ? v * 16 : VALUE_CAP;
                g->scale = is_pow2(v) && (v < 64 || count) ? GENE_POW2
                           : count || v < 64               ? GENE_STEP
                                                           : GENE_ALIGN32;
                if (g->scale == GENE_ALIGN32 && g->lo < 32)
                        g->lo = 32;
        } else {
                g->scale = GENE_STEP;
                g->lo = v >= 4 ? v / 4 : 1;
                g->hi = v <= VALUE_CAP / 4 ? v * 4 : VALUE_CAP;
        }
        if (count && g->scale == GENE_STEP && !strstr(g->name, "CORE"))
                g->lo = 1;
        /* a power-of-two count of tiles too: TILE_NUM = 512 written for one-row tiles */
        if (count && g->scale == GENE_POW2 && strstr(g->name, "TILE"))
                g->lo = 1;
}

/* "@tune lo..hi [step|pow2|align32]" in a comment; false when absent or malformed. */
static bool parse_marker(const char *comment, size_t len, struct gene *g)
{
        char text[256], scale[16] = "step";
        long long lo, hi;
        const char *at;

        snprintf(text, sizeof(text), "%.*s", (int)(len < 255 ? len : 255), comment);
        at = strstr(text, "@tune");
        if (!at || sscanf(at, "@tune %lld..%lld %15s", &lo, &hi, scale) < 2 || lo > hi)
                return false;
        g->lo = lo;
        g->hi = hi;
        g->scale = strcasecmp(scale, "pow2") == 0      ? GENE_POW2
                   : strcasecmp(scale, "align32") == 0 ? GENE_ALIGN32
                                                       : GENE_STEP;
        g->marked = true;
        return true;
}

static void copy_name(struct gene *g, const struct token_list *list, size_t i)
{
        const struct token *t = &list->tokens[i];

        snprintf(g->name, sizeof(g->name), "%.*s", (int)t->len, list->text + t->start);
}

/*
 * Decides whether the literal at token i sits where a tuning knob does and
 * names it.  Only plain literals count: "x = 8;" but not "x = 8 * n;".
 */
static bool knob_context(const struct token_list *list, size_t i, struct gene *g)
{
        size_t prev = token_prev(list, i), next = token_next(list, i);
        size_t before = prev == (size_t)-1 ? (size_t)-1 : token_prev(list, prev);
        const struct token *t = &list->tokens[i];

        if (t->in_directive) {
                /* # define NAME LIT, and nothing after it on the line */
                size_t hash = before == (size_t)-1 ? (size_t)-1 : token_prev(list, before);
                if (prev == (size_t)-1 || before == (size_t)-1 || hash == (size_t)-1 ||
                    !token_is(list, before, "define") ||
                    list->tokens[hash].kind != TOKEN_DIRECTIVE ||
                    list->tokens[prev].kind != TOKEN_IDENTIFIER ||
                    (next < list->n && list->tokens[next].in_directive &&
                     list->tokens[next].kind != TOKEN_DIRECTIVE &&
                     list->tokens[next].line == t->line))
                        return false;
                copy_name(g, list, prev);
                return true;
        }
        if (next >= list->n || prev == (size_t)-1 || before == (size_t)-1)
                return false;
        if (token_is(list, prev, "=") && list->tokens[before].kind == TOKEN_IDENTIFIER &&
            (token_is(list, next, ";") || token_is(list, next, ","))) {
                copy_name(g, list, before);
                return true;
        }
        if (token_is(list, prev, "(") && token_is(list, before, "SetBlockDim") &&
            token_is(list, next, ")")) {
                snprintf(g->name, sizeof(g->name), "blockDim");
                return true;
        }
        return false;
}

static bool same_token_text(const struct token_list *list, size_t a, size_t b)
{
        const struct token *x = &list->tokens[a], *y = &list->tokens[b];

        return x->len == y->len &&
               memcmp(list->text + x->start, list->text + y->start, x->len) == 0;
}

/*
 * Whether literal i is the bound of a clamp, "if (name > LIT) name = LIT;"
 * or the same with braces: a limit (4095 rows for one DataCopyPad), not a
 * choice.  A gene there could only break the limit or do nothing.
 */
static bool is_clamp_bound(const struct token_list *list, size_t i)
{
        size_t steps[7], at = i;

        /* walking back from LIT: =, name, [{,] ), LIT, comparison, name, ( */
        for (int k = 0; k < 7; k++) {
                at = token_prev(list, at);
                if (at != (size_t)-1 && k == 2 && token_is(list, at, "{"))
                        at = token_prev(list, at);
                if (at == (size_t)-1)
                        return false;
                steps[k] = at;
        }
        return token_is(list, steps[0], "=") && token_is(list, steps[2], ")") &&
               list->tokens[steps[3]].kind == TOKEN_NUMBER && same_token_text(list, steps[3], i) &&
               (token_is(list, steps[4], ">") || token_is(list, steps[4], ">=") ||
                token_is(list, steps[4], "<") || token_is(list, steps[4], "<=")) &&
               list->tokens[steps[1]].kind == TOKEN_IDENTIFIER &&
               same_token_text(list, steps[1], steps[5]) && token_is(list, steps[6], "(") &&
               token_is(list, token_prev(list, steps[6]), "if");
}

static void lower_name(const char *name, char *lower, size_t size)
{
        size_t i;

        for (i = 0; name[i] && i + 1 < size; i++)
                lower[i] = (char)tolower((unsigned char)name[i]);
        lower[i] = '\0';
}

/* Names that hold hardware facts or loop counters rather than choices. */
static bool fixed_by_hardware(const char *name)
{
        char lower[64];

        lower_name(name, lower, sizeof(lower));
        /* a one-letter name is a loop counter, not a choice; bytesPerElem as bytes_per_elem */
        return strlen(lower) < 2 || strstr(lower, "bytes_per") || strstr(lower, "bytesper") ||
               strstr(lower, "sizeof");
}

static bool is_alignment_name(const char *name)
{
        char lower[64];

        lower_name(name, lower, sizeof(lower));
        return strstr(lower, "align") || strstr(lower, "block_size") ||
               strstr(lower, "blocksize") || strstr(lower, "block_bytes") ||
               strstr(lower, "blockbytes") || strstr(lower, "byte_block") ||
               strstr(lower, "one_block") || strstr(lower, "block_byte") ||
               strstr(lower, "data_block") || strstr(lower, "byte_repeat") ||
               strstr(lower, "repeat_size") || strstr(lower, "repeat_byte") ||
               strstr(lower, "cache_line") || strstr(lower, "cacheline") ||
               strstr(lower, "byteblock") || strstr(lower, "oneblock") ||
               strstr(lower, "blockbyte") || strstr(lower, "byterepeat") ||
               strstr(lower, "repeatsize") || strstr(lower, "repeatbyte");
}

/*
 * An alignment or block-size constant (ALIGN_ELEMS, BLOCK_BYTES, BLOCK_SIZE,
 * BYTE_BLOCK, BYTE_REPEAT, CACHE_LINE) is a hardware unit, the 32-byte
 * block, the 256-byte repeat or the 512-byte cache line, when it is
 * written; finer breaks every copy and instruction sized by it, rounding each
 * core's share to a coarser power of two is a real choice (the 910B reads
 * global memory fastest in 512-byte-aligned bursts).  So a power of two is
 * searched at powers of two from its value up to 32 times it, never finer;
 * any other alignment is left as written.
 */
static bool alignment_range(struct gene *g)
{
        if (!is_pow2(g->value))
                return false;
        g->scale = GENE_POW2;
        g->lo = g->value;
        g->hi = g->value <= VALUE_CAP / 32 ? g->value * 32 : VALUE_CAP;
        return true;
}

/*
 * A literal 1 is usually a unit or a flag, not a choice, but a constant
 * named as a count of something repeated (BUFFER_NUM = 1, TILE_NUM = 1,
 * CORE_COUNT = 1) is the single-buffered or single-core starting point
 * users write most often, so it is searched at powers of two up to 16.
 * Only upper-case names count: a local "num = 1" is often reassigned.
 */
static bool is_count_constant(const char *name)
{
        for (const char *c = name; *c; c++)
                if (islower((unsigned char)*c))
                        return false;
        return strstr(name, "NUM") || strstr(name, "COUNT") || strstr(name, "BUFFER");
}

/* The comment on the same line as token i, if any. */
static const struct token *comment_on_line(const struct token_list *list, size_t i)
{
        unsigned line = list->tokens[i].line;

        for (size_t j = i + 1; j < list->n && list->tokens[j].line == line; j++)
                if (list->tokens[j].kind == TOKEN_COMMENT)
                        return &list->tokens[j];
        return NULL;
}

/* Why an unmarked literal in a knob's place is no gene; NULL: it is one. */
static const char *not_a_gene(const struct token_list *list, size_t i, const struct gene *g)
{
        if (g->value < 1)
                return "zero or negative";
        if (is_clamp_bound(list, i))
                return "clamp bound";
        if (g->value == 1 && !is_count_constant(g->name))
                return "a unit or flag (1)";
        if (fixed_by_hardware(g->name))
                return "bytes per element or loop counter";
        return NULL;
}

static const char *taken_why(const struct gene *g)
{
        if (g->marked)
                return "@tune marker";
        if (strcmp(g->name, "blockDim") == 0)
                return "core count (SetBlockDim)";
        if (is_alignment_name(g->name))
                return "alignment";
        if (is_count_constant(g->name))
                return "count";
        return "tile size or factor";
}

int genes_scan_text(const char *file, const char *text, size_t len, const struct gene_uses *uses,
                    struct gene **genes, size_t *n, struct gene_literals *literals, char *err,
                    size_t err_size)
{
        struct token_list list;
        unsigned bad_line = 0;
        size_t first_new = *n, first_literal = literals ? literals->n : 0;
        bool any_marked = false;
        int r;

        r = tokenize(text, len, &list, &bad_line);
        if (r < 0) {
                snprintf(err, err_size, "%s:%u: cannot tokenize (unterminated literal or comment)",
                         file, bad_line);
                return r;
        }
        for (size_t i = 0; i < list.n && r == 0; i++) {
                const struct token *t = &list.tokens[i];
                const struct token *comment;
                const char *why;
                struct gene g = { 0 };
                struct gene *grown;

                if (t->kind != TOKEN_NUMBER || !parse_integer(text + t->start, t->len, &g.value))
                        continue;
                comment = comment_on_line(&list, i);
                if (comment && parse_marker(text + comment->start, comment->len, &g)) {
                        any_marked = true;
                        if (!knob_context(&list, i, &g))
                                snprintf(g.name, sizeof(g.name), "line%u", t->line);
                } else if (!knob_context(&list, i, &g)) {
                        continue;
                } else if ((why = gene_fixed_meaning(uses, &list, i, g.name, g.value))) {
                        r = gene_literal_note(literals, file, t, &g, why, false, true);
                        continue;
                } else if ((why = not_a_gene(&list, i, &g))) {
                        /* zeros are everywhere and say nothing: only the others are noted */
                        r = g.value < 1
                                ? 0
                                : gene_literal_note(literals, file, t, &g, why, false, false);
                        continue;
                } else if (g.value == 1) {
                        g.scale = GENE_POW2;
                        g.lo = 1;
                        g.hi = 16;
                } else if (is_alignment_name(g.name)) {
                        if (!alignment_range(&g)) {
                                r = gene_literal_note(literals, file, t, &g,
                                                      "alignment that is no power of two", false,
                                                      false);
                                continue;
                        }
                } else {
                        infer_range(&g, is_count_constant(g.name));
                }
                if (*n == GENES_MAX) {
                        snprintf(err, err_size,
                                 "%s: more than %d genes; mark the ones to tune "
                                 "with // @tune lo..hi",
                                 file, GENES_MAX);
                        r = -E2BIG;
                        break;
                }
                snprintf(g.file, sizeof(g.file), "%s", file);
                g.start = t->start;
                g.len = t->len;
                g.line = t->line;
                grown = realloc(*genes, (*n + 1) * sizeof(**genes));
                if (!grown) {
                        r = -ENOMEM;
                        break;
                }
                *genes = grown;
                (*genes)[(*n)++] = g;
                r = gene_literal_note(literals, file, t, &g, taken_why(&g), true, false);
        }
        if (r == 0 && !any_marked) {
                struct cxx_file f = { file, text, len, list };
                size_t hidden = *n;
                r = genes_find_hidden(file, &f, genes, n, first_new, err, err_size);
                if (r == 0)
                        r = genes_judge_found(file, &list, uses, *genes, n, hidden, literals);
        }
        /* markers in this file mean only marked literals of this file count */
        if (r == 0 && any_marked) {
                size_t kept = first_new;
                for (size_t i = first_new; i < *n; i++)
                        if ((*genes)[i].marked)
                                (*genes)[kept++] = (*genes)[i];
                *n = kept;
                for (size_t k = first_literal; literals && k < literals->n; k++)
                        if (literals->items[k].taken &&
                            strcmp(literals->items[k].why, "@tune marker") != 0) {
                                literals->items[k].taken = false;
                                snprintf(literals->items[k].why, sizeof(literals->items[k].why),
                                         "unmarked (the operator marks its knobs)");
                        }
        }
        token_list_release(&list);
        return r;
}

int64_t gene_snap(const struct gene *g, int64_t v)
{
        if (v < g->lo)
                v = g->lo;
        if (v > g->hi)
                v = g->hi;
        switch (g->scale) {
        case GENE_POW2: {
                int64_t p = 1;
                while (p * 2 <= v)
                        p *= 2;
                /* round to the nearer power, staying inside the range */
                if (p * 2 <= g->hi && v - p > p * 2 - v)
                        p *= 2;
                return p < g->lo ? g->lo : p;
        }
        case GENE_ALIGN32: {
                int64_t a = (v + 16) / 32 * 32;
                if (a < g->lo)
                        a += 32;
                if (a > g->hi)
                        a -= 32;
                return a < 32 ? 32 : a;
        }
        case GENE_STEP:
        default:
                return v;
        }
}

/* Sets the literal of len bytes at start, which must hold was, to value (its suffix kept). */
static int set_literal(struct text_edits *edits, const char *text, size_t len, size_t start,
                       size_t lit_len, int64_t was, int64_t value)
{
        char literal[32];
        int64_t check;
        size_t suffix = lit_len;

        if (start > len || lit_len > len - start || !parse_integer(text + start, lit_len, &check) ||
            check != was)
                return -EINVAL;
        /* keep the literal's suffix (2048U stays unsigned) */
        while (suffix > 0 && strchr("uUlL", text[start + suffix - 1]))
                suffix--;
        snprintf(literal, sizeof(literal), "%" PRId64 "%.*s", value, (int)(lit_len - suffix),
                 text + start + suffix);
        return text_edits_add(edits, start, lit_len, literal);
}

int genes_apply(const char *file, const char *text, size_t len, const struct gene *genes,
                const int64_t *values, size_t n, char **ret)
{
        struct text_edits edits = { 0 };
        int r = 0;

        for (size_t i = 0; i < n && r == 0; i++) {
                const struct gene *g = &genes[i];
                if (strcmp(g->file, file) != 0)
                        continue;
                r = set_literal(&edits, text, len, g->start, g->len, g->value, values[i]);
                /* a twin before the text's start wraps around to a huge start: refused */
                for (size_t t = 0; t < g->n_twins && r == 0; t++)
                        r = set_literal(&edits, text, len, g->start + (size_t)g->twins[t].offset,
                                        g->twins[t].len, g->value + g->twins[t].delta,
                                        values[i] + g->twins[t].delta);
        }
        if (r == 0)
                r = text_edits_apply(&edits, text, len, ret);
        text_edits_release(&edits);
        return r;
}

bool gene_parse_literal(const char *s, size_t len, int64_t *ret)
{
        return parse_integer(s, len, ret);
}

void gene_infer_range(struct gene *g, bool count)
{
        infer_range(g, count);
}

bool gene_name_is_tile_size(const char *name)
{
        static const char *const sizes[] = { "tilelen", "tilesize", "tilebytes", "tileelem", NULL };
        const char *last = strrchr(name, ':');
        char flat[128];
        size_t n = 0;

        for (const char *p = last ? last + 1 : name; *p && n + 1 < sizeof(flat); p++)
                if (*p != '_')
                        flat[n++] = (char)tolower((unsigned char)*p);
        flat[n] = '\0';
        for (size_t i = 0; sizes[i]; i++)
                if (strstr(flat, sizes[i]))
                        return true;
        return false;
}
