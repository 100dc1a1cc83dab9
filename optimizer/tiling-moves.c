/* SPDX-License-Identifier: MIT */
/*
 * Stage I's structural tiling moves: source rewrites of the host tiling
 * function that a gene cannot express (a fixed core count derived from the
 * platform, blockDim chosen from the problem size, the tile derived from
 * the UB capacity and the kernel's live buffers, the remainder of a core
 * split spread over the first cores).  They are the host-side
 * analogue of the kernel motifs: they read the tiling function through
 * cxx/'s statement view and, run as forward-only motifs, record their
 * edits with the motifs' site builder (sites-internal.h), so comments,
 * whitespace and macros outside the edits survive.
 *
 * The fourth, remainder_to_first_cores, spreads the remainder of a
 * former/tail core split over the first cores where the host leaves it all
 * to one tail core and the kernel already reads the split (formerNum,
 * formerLength, tailLength) from the tiling data.  Where the kernel
 * instead computes its offset as block index times one share (relu's
 * blockLength, the level-2 rowsPerCore/tailCoreRows), balancing needs a
 * kernel change: Stage II's motif remainder_first_cores.  No corpus
 * operator leaves a former/tail split unbalanced (add, axpy, sigmoid and
 * silu already balance), so tests/ops/ok/tail_core_split exercises it.
 */
#include "sites-internal.h"
#include "genes-internal.h"
#include "cxx/cxx.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Buffers past this are not believed (a miscount): the tile move stays away. */
#define LIVE_BUFFERS_MAX 64

/* ------------------------------------------------------------ the tiling function */

/* The next non-comment token after i, or CXX_NONE at the end (cxx_tok_next says n there). */
static size_t next_tok(const struct cxx_file *f, size_t i)
{
        size_t j = cxx_tok_next(f, i);

        return j >= f->tokens.n ? CXX_NONE : j;
}

bool tiling_function_after(const struct cxx_file *f, size_t after, struct tiling_fn *ret)
{
        struct cxx_func *funcs = NULL;
        size_t n = 0;
        bool found = false;

        if (cxx_funcs_find(f, &funcs, &n) < 0)
                return false;
        for (size_t k = 0; k < n && !found; k++) {
                size_t open, close, name = funcs[k].name, param = CXX_NONE;
                if (name == CXX_NONE || (after != CXX_NONE && funcs[k].open <= after) ||
                    !cxx_range_mentions(f, funcs[k].open, funcs[k].close, "SetBlockDim",
                                        strlen("SetBlockDim")))
                        continue;
                open = next_tok(f, name);
                if (open == CXX_NONE || !cxx_tok_eq(f, open, "("))
                        continue;
                close = token_match(&f->tokens, open);
                for (size_t i = open; i < close && i < f->tokens.n; i++) {
                        size_t star, id;
                        if (!cxx_tok_eq(f, i, "TilingContext"))
                                continue;
                        star = next_tok(f, i);
                        id = star == CXX_NONE ? CXX_NONE : next_tok(f, star);
                        if (star != CXX_NONE && cxx_tok_eq(f, star, "*") && id != CXX_NONE &&
                            cxx_tok_is_ident(f, id) && cxx_tok_len(f, id) < sizeof(ret->context))
                                param = id;
                }
                if (param == CXX_NONE)
                        continue;
                ret->open = funcs[k].open;
                ret->close = funcs[k].close;
                snprintf(ret->context, sizeof(ret->context), "%.*s", (int)cxx_tok_len(f, param),
                         cxx_tok_text(f, param));
                found = true;
        }
        free(funcs);
        return found;
}

/* The tiling function of a host file: the first. */
static bool tiling_function(const struct cxx_file *f, struct tiling_fn *ret)
{
        return tiling_function_after(f, CXX_NONE, ret);
}

static bool body_mentions(const struct cxx_file *f, const struct tiling_fn *fn, const char *name)
{
        return cxx_range_mentions(f, fn->open, fn->close, name, strlen(name));
}

/* ------------------------------------------------------------ file-level constants */

/* "constexpr T NAME = 8;", "const T NAME = 8;" or "#define NAME 8" outside any function. */
struct file_const {
        size_t first, last; /* the declaration (tokens); for a #define, '#' and the value */
        size_t name, value;
        bool define;
};

/* Whether a constant's name contains any of the words (upper case, NULL-terminated). */
static bool name_has(const struct cxx_file *f, size_t name, const char *const *words)
{
        char upper[128];
        size_t len = cxx_tok_len(f, name);

        if (len >= sizeof(upper))
                return false;
        for (size_t i = 0; i < len; i++)
                upper[i] = (char)toupper((unsigned char)cxx_tok_text(f, name)[i]);
        upper[len] = '\0';
        for (size_t w = 0; words[w]; w++)
                if (strstr(upper, words[w]))
                        return true;
        return false;
}

/* Calls fn for every integer constant at file level; stops at the first nonzero return. */
typedef int (*const_fn)(struct motif_scan *scan, struct cxx_file *f, const struct tiling_fn *fn,
                        const struct file_const *c, void *userdata);

static int for_each_const(struct motif_scan *scan, struct cxx_file *f, const struct tiling_fn *fn,
                          const_fn visit, void *userdata)
{
        struct cxx_func *funcs = NULL;
        size_t n_funcs = 0;
        int r = 0;

        r = cxx_funcs_find(f, &funcs, &n_funcs);
        if (r < 0)
                return r;
        for (size_t i = 0; i < f->tokens.n && r == 0; i++) {
                struct file_const c = { 0 };
                size_t eq, value, semi;
                if (f->tokens.tokens[i].kind == TOKEN_DIRECTIVE) {
                        size_t def = next_tok(f, i), name, val, after;
                        if (def == CXX_NONE || !cxx_tok_eq(f, def, "define"))
                                continue;
                        name = next_tok(f, def);
                        val = name == CXX_NONE ? CXX_NONE : next_tok(f, name);
                        if (val == CXX_NONE || !cxx_tok_is_ident(f, name) ||
                            f->tokens.tokens[val].kind != TOKEN_NUMBER ||
                            !f->tokens.tokens[val].in_directive)
                                continue;
                        after = next_tok(f, val);
                        if (after != CXX_NONE && f->tokens.tokens[after].in_directive &&
                            f->tokens.tokens[after].line == f->tokens.tokens[val].line)
                                continue; /* an expression, not a plain value */
                        c = (struct file_const){ i, val, name, val, true };
                        r = visit(scan, f, fn, &c, userdata);
                        continue;
                }
                if (f->tokens.tokens[i].in_directive || !cxx_tok_is_ident(f, i) ||
                    cxx_in_function(funcs, n_funcs, i))
                        continue;
                eq = next_tok(f, i);
                value = eq == CXX_NONE ? CXX_NONE : next_tok(f, eq);
                semi = value == CXX_NONE ? CXX_NONE : next_tok(f, value);
                if (semi == CXX_NONE || !cxx_tok_eq(f, eq, "=") || !cxx_tok_eq(f, semi, ";") ||
                    f->tokens.tokens[value].kind != TOKEN_NUMBER)
                        continue;
                c.first = cxx_stmt_first(f, i);
                c.last = semi;
                c.name = i;
                c.value = value;
                if (!cxx_range_mentions(f, c.first, i, "constexpr", 9) &&
                    !cxx_range_mentions(f, c.first, i, "const", 5))
                        continue;
                r = visit(scan, f, fn, &c, userdata);
        }
        free(funcs);
        return r < 0 ? r : 0;
}

/* Whether the constant's name is used outside the tiling function's body (its declaration aside). */
static bool used_elsewhere(const struct cxx_file *f, const struct tiling_fn *fn,
                           const struct file_const *c)
{
        for (size_t i = 0; i < f->tokens.n; i++) {
                if (i == c->name || (i > fn->open && i < fn->close) ||
                    cxx_tok_len(f, i) != cxx_tok_len(f, c->name) || !cxx_tok_is_ident(f, i))
                        continue;
                if (memcmp(cxx_tok_text(f, i), cxx_tok_text(f, c->name), cxx_tok_len(f, i)) == 0)
                        return true;
        }
        return false;
}

/* ------------------------------------------------------------ edits shared by the moves */

/* Replaces every use of the constant in the tiling function with replacement. */
static void replace_uses(struct motif_scan *scan, struct cxx_file *f, const struct tiling_fn *fn,
                         const struct file_const *c, const char *replacement)
{
        for (size_t i = fn->open + 1; i < fn->close; i++)
                if (cxx_tok_is_ident(f, i) && cxx_tok_len(f, i) == cxx_tok_len(f, c->name) &&
                    memcmp(cxx_tok_text(f, i), cxx_tok_text(f, c->name), cxx_tok_len(f, i)) == 0)
                        site_replace(scan, f, i, i, replacement);
}

/*
 * Removes the constant when nothing else uses it: a gene left on an
 * unused constant would spend evaluations on texts that all run alike.
 */
static void drop_if_unused(struct motif_scan *scan, struct cxx_file *f, const struct tiling_fn *fn,
                           const struct file_const *c)
{
        size_t s, e;

        if (used_elsewhere(f, fn, c))
                return;
        if (!c->define) {
                site_delete_stmt(scan, f, c->first, cxx_with_trailing_comment(f, c->last));
                return;
        }
        s = cxx_line_start(f, f->tokens.tokens[c->first].start);
        e = cxx_tok_end(f, c->last);
        while (e < f->len && f->text[e] != '\n')
                e++;
        if (e < f->len)
                e++;
        site_edit(scan, f, s, e - s, "");
}

void ensure_include(struct motif_scan *scan, struct cxx_file *f, const char *header)
{
        size_t last = CXX_NONE, want = strlen(header) + 2, e;

        for (size_t i = 0; i < f->tokens.n; i++) {
                size_t inc = next_tok(f, i), path;
                if (f->tokens.tokens[i].kind != TOKEN_DIRECTIVE || inc == CXX_NONE ||
                    !cxx_tok_eq(f, inc, "include"))
                        continue;
                path = next_tok(f, inc);
                if (path != CXX_NONE && f->tokens.tokens[path].kind == TOKEN_STRING &&
                    cxx_tok_len(f, path) == want &&
                    memcmp(cxx_tok_text(f, path) + 1, header, want - 2) == 0)
                        return;
                last = path;
        }
        if (last == CXX_NONE) {
                site_editf(scan, f, 0, 0, "#include \"%s\"\n", header);
                return;
        }
        e = cxx_tok_end(f, last);
        while (e < f->len && f->text[e] != '\n')
                e++;
        site_editf(scan, f, e, 0, "\n#include \"%s\"", header);
}

/* The first statement of the tiling function's body, or CXX_NONE for an empty one. */
static size_t body_first(const struct cxx_file *f, const struct tiling_fn *fn)
{
        size_t first = next_tok(f, fn->open);

        return first == CXX_NONE || first >= fn->close ? CXX_NONE : first;
}

/* ------------------------------------------------------------ cores_from_platform */

static const char *const core_words[] = { "BLOCK_DIM", "BLOCKDIM",   "CORE_NUM",  "CORENUM",
                                          "NUM_CORE",  "CORE_COUNT", "USED_CORE", NULL };

static int cores_visit(struct motif_scan *scan, struct cxx_file *f, const struct tiling_fn *fn,
                       const struct file_const *c, void *userdata)
{
        size_t first = body_first(f, fn);
        char var[64], *line;

        (void)userdata;
        if (first == CXX_NONE || !name_has(f, c->name, core_words) ||
            !cxx_range_mentions(f, fn->open, fn->close, cxx_tok_text(f, c->name),
                                cxx_tok_len(f, c->name)))
                return 0;
        cxx_fresh_name(f, "coreNum", var, sizeof(var));
        site_begin(scan, f, c->name, "derive %.*s from the platform's vector core count",
                   (int)cxx_tok_len(f, c->name), cxx_tok_text(f, c->name));
        line = str_printf("uint32_t %s = platform_ascendc::PlatformAscendC(%s->GetPlatformInfo())"
                          ".GetCoreNumAiv();",
                          var, fn->context);
        site_insert_before(scan, f, first, line);
        free(line);
        replace_uses(scan, f, fn, c, var);
        drop_if_unused(scan, f, fn, c);
        ensure_include(scan, f, PLATFORM_HEADER);
        return site_end(scan);
}

/* Whether any kernel file reads the launch's core count (GetBlockNum()). */
static bool kernel_reads_block_num(const struct motif_scan *scan)
{
        for (size_t k = 0; k < scan->n_files; k++) {
                const struct cxx_file *f = &scan->files[k];
                if (scan_is_kernel(f) && f->tokens.n &&
                    cxx_range_mentions(f, 0, f->tokens.n - 1, "GetBlockNum", 11))
                        return true;
        }
        return false;
}

/* The literal at tok becomes the platform's vector core count. */
static int core_literal_site(struct motif_scan *scan, struct cxx_file *f,
                             const struct tiling_fn *fn, size_t tok, const char *what)
{
        char *call = str_printf("platform_ascendc::PlatformAscendC(%s->GetPlatformInfo())"
                                ".GetCoreNumAiv()",
                                fn->context);

        site_begin(scan, f, tok, "derive %s (%.*s) from the platform's vector core count", what,
                   (int)cxx_tok_len(f, tok), cxx_tok_text(f, tok));
        if (call)
                site_replace(scan, f, tok, tok, call);
        else
                site_fail(scan);
        free(call);
        ensure_include(scan, f, PLATFORM_HEADER);
        return site_end(scan);
}

/*
 * A core count written as a literal inside the tiling function: a local
 * "uint32_t aivNum = 40;" (or "coreNum = 48;"), or SetBlockDim(40) where
 * the kernel reads its core count from the launch (GetBlockNum()), so that
 * nothing else holds the 40.  A count of 1 is a kernel written for one
 * core, not a choice.
 */
static int scan_core_literals(struct motif_scan *scan, struct cxx_file *f,
                              const struct tiling_fn *fn)
{
        bool reads = kernel_reads_block_num(scan);

        for (size_t i = fn->open + 1; i < fn->close; i++) {
                size_t prev = cxx_tok_prev(f, i), next = next_tok(f, i), name;
                char what[80];
                int r = 0;
                if (!cxx_tok_is_kind(f, i, TOKEN_NUMBER) || cxx_tok_is_number(f, i, "0") ||
                    cxx_tok_is_number(f, i, "1") || prev == CXX_NONE || next == CXX_NONE)
                        continue;
                name = cxx_tok_prev(f, prev);
                if (cxx_tok_eq(f, prev, "=") && cxx_tok_eq(f, next, ";") && name != CXX_NONE &&
                    cxx_tok_is_ident(f, name) &&
                    gene_name_is_core_count(cxx_tok_text(f, name), cxx_tok_len(f, name))) {
                        snprintf(what, sizeof(what), "%.*s", (int)cxx_tok_len(f, name),
                                 cxx_tok_text(f, name));
                        r = core_literal_site(scan, f, fn, i, what);
                } else if (reads && cxx_tok_eq(f, prev, "(") && cxx_tok_eq(f, next, ")") &&
                           name != CXX_NONE && cxx_tok_eq(f, name, "SetBlockDim")) {
                        r = core_literal_site(scan, f, fn, i, "the launch's blockDim");
                }
                if (r < 0)
                        return r;
        }
        return 0;
}

/*
 * A fixed core count (a constant named like BLOCK_DIM or CORE_NUM used by
 * the tiling function, a local such as aivNum = 40 in it, or a literal
 * SetBlockDim argument; the function asks the platform for none) is
 * replaced by the platform's vector core count, so the launch fills the
 * chip it runs on.
 */
static int scan_cores_from_platform(struct motif_scan *scan)
{
        for (size_t k = 0; k < scan->n_files; k++) {
                struct cxx_file *f = &scan->files[k];
                struct tiling_fn fn;
                bool first = true;
                int r;
                if (!scan_is_host(f))
                        continue;
                /* a file may hold several (a broadcast path beside the plain one) */
                for (size_t after = CXX_NONE; tiling_function_after(f, after, &fn);
                     after = fn.close, first = false) {
                        if (body_mentions(f, &fn, "GetCoreNum") ||
                            body_mentions(f, &fn, "GetCoreNumAiv") ||
                            body_mentions(f, &fn, "GetCoreNumAic"))
                                continue;
                        /* a file-level constant once: its uses in the first function */
                        r = first ? for_each_const(scan, f, &fn, cores_visit, NULL) : 0;
                        if (r == 0)
                                r = scan_core_literals(scan, f, &fn);
                        if (r < 0)
                                return r;
                }
        }
        return 0;
}

/* ------------------------------------------------------------ blockdim_from_size */

/* Minimum useful bytes of input 0 per core, one site each. */
static const unsigned size_variants[] = { 4096, 16384, 65536 };

/*
 * The statement declaring the core-count variable: "T name = ...GetCoreNum[Aiv]();".
 * *ret_name is the variable's token, *ret_last the statement's ';'.
 */
static bool core_variable(const struct cxx_file *f, const struct tiling_fn *fn, size_t *ret_first,
                          size_t *ret_last, size_t *ret_name)
{
        for (size_t i = fn->open + 1; i < fn->close; i++) {
                size_t first, last, eq = CXX_NONE, name, type;
                if (!cxx_tok_eq(f, i, "GetCoreNumAiv") && !cxx_tok_eq(f, i, "GetCoreNum"))
                        continue;
                first = cxx_stmt_first(f, i);
                last = cxx_stmt_last(f, first);
                for (size_t k = first; k < i && eq == CXX_NONE; k++)
                        if (cxx_tok_eq(f, k, "="))
                                eq = k;
                if (eq == CXX_NONE || last == CXX_NONE || !cxx_tok_eq(f, last, ";"))
                        continue;
                name = cxx_tok_prev(f, eq);
                type = name == CXX_NONE ? CXX_NONE : cxx_tok_prev(f, name);
                if (type == CXX_NONE || type < first || !cxx_tok_is_ident(f, name) ||
                    !cxx_tok_is_ident(f, type) || cxx_range_mentions(f, first, name, "const", 5) ||
                    cxx_range_mentions(f, first, name, "constexpr", 9))
                        continue;
                *ret_first = first;
                *ret_last = last;
                *ret_name = name;
                return true;
        }
        return false;
}

/*
 * blockDim from the problem size: after the core count is read from the
 * platform, it is capped at one core per size_variants[v] bytes of input
 * 0, so that a small input does not pay the launch of every core.  The
 * tiling function's own split then works from the smaller count.
 */
static int scan_blockdim_from_size(struct motif_scan *scan)
{
        for (size_t k = 0; k < scan->n_files; k++) {
                struct cxx_file *f = &scan->files[k];
                struct tiling_fn fn;
                size_t first, last, name;
                char need[64], var[64];
                if (!scan_is_host(f) || !tiling_function(f, &fn) ||
                    !body_mentions(f, &fn, "GetInputShape") ||
                    body_mentions(f, &fn, "MIN_BYTES_PER_CORE") ||
                    !core_variable(f, &fn, &first, &last, &name))
                        continue;
                snprintf(var, sizeof(var), "%.*s", (int)cxx_tok_len(f, name),
                         cxx_tok_text(f, name));
                cxx_fresh_name(f, "coresForSize", need, sizeof(need));
                for (size_t v = 0; v < ARRAY_SIZE(size_variants); v++) {
                        char *lines[4];
                        site_begin(scan, f, name, "cap %s at one core per %u bytes of input 0", var,
                                   size_variants[v]);
                        lines[0] = str_printf("constexpr uint64_t MIN_BYTES_PER_CORE = %u;",
                                              size_variants[v]);
                        lines[1] = str_printf(
                            "uint64_t %s = ((uint64_t)%s->GetInputShape(0)->GetStorageShape()"
                            ".GetShapeSize() * ge::GetSizeByDataType(%s->GetInputDesc(0)"
                            "->GetDataType()) + MIN_BYTES_PER_CORE - 1) / MIN_BYTES_PER_CORE;",
                            need, fn.context, fn.context);
                        lines[2] = str_printf("if (%s > 0 && %s > %s)", need, var, need);
                        lines[3] = str_printf("%s%s = (decltype(%s))%s;", cxx_indent_unit(f), var,
                                              var, need);
                        for (size_t l = 0; l < 4; l++) {
                                site_insert_after(scan, f, first, last, lines[l]);
                                free(lines[l]);
                        }
                        if (site_end(scan) < 0)
                                return -ENOMEM;
                }
        }
        return 0;
}

/* ------------------------------------------------------------ tile_from_ub */

static const char *const tile_words[] = { "TILE_LEN",   "TILELEN",   "TILE_SIZE",
                                          "TILE_BYTES", "TILE_ELEM", NULL };

/* A kernel constant's value ("constexpr int32_t BUFFER_NUM = 2;"), or -1. */
static long kernel_constant(const struct cxx_file *f, size_t name)
{
        for (size_t i = 0; i < f->tokens.n; i++) {
                size_t eq = next_tok(f, i), value = eq == CXX_NONE ? CXX_NONE : next_tok(f, eq);
                if (i == name || value == CXX_NONE || !cxx_tok_is_ident(f, i) ||
                    cxx_tok_len(f, i) != cxx_tok_len(f, name) ||
                    memcmp(cxx_tok_text(f, i), cxx_tok_text(f, name), cxx_tok_len(f, i)) != 0 ||
                    !cxx_tok_eq(f, eq, "=") || f->tokens.tokens[value].kind != TOKEN_NUMBER)
                        continue;
                return strtol(cxx_tok_text(f, value), NULL, 0);
        }
        return -1;
}

/*
 * The UB buffers the kernel holds at once: every InitBuffer(queue, depth,
 * bytes) counts depth buffers (a depth the file does not spell as a number
 * or constant counts 2), every InitBuffer(buf, bytes) one.  Buffers in
 * branches for other data types are counted too, which errs on the small
 * side.  0 when the kernel calls InitBuffer nowhere.
 */
static size_t live_buffers(const struct motif_scan *scan)
{
        size_t live = 0;

        for (size_t k = 0; k < scan->n_files; k++) {
                const struct cxx_file *f = &scan->files[k];
                if (!scan_is_kernel(f))
                        continue;
                for (size_t i = 0; i < f->tokens.n; i++) {
                        struct cxx_arg args[CXX_MAX_ARGS];
                        size_t open = next_tok(f, i), n;
                        if (!cxx_tok_eq(f, i, "InitBuffer") || open == CXX_NONE ||
                            !cxx_tok_eq(f, open, "("))
                                continue;
                        n = cxx_args_split(f, open, args, CXX_MAX_ARGS);
                        if (n == 2) {
                                live += 1;
                        } else if (n == 3) {
                                long depth = -1;
                                if (args[1].first == args[1].last &&
                                    f->tokens.tokens[args[1].first].kind == TOKEN_NUMBER)
                                        depth = strtol(cxx_tok_text(f, args[1].first), NULL, 0);
                                else if (args[1].first == args[1].last &&
                                         cxx_tok_is_ident(f, args[1].first))
                                        depth = kernel_constant(f, args[1].first);
                                live += depth > 0 && depth <= 8 ? (size_t)depth : 2;
                        }
                }
        }
        return live;
}

struct tile_variant {
        unsigned share;   /* each buffer gets 1/share of its even part of the UB */
        bool input_bytes; /* elements of input 0's size rather than 4 bytes */
        const char *what;
};

static const struct tile_variant tile_variants[] = {
        { 1, false, "4-byte elements" },
        { 2, false, "4-byte elements, half each" },
        { 1, true, "elements of input 0" },
};

struct tile_scan {
        size_t live;
};

static int tile_visit(struct motif_scan *scan, struct cxx_file *f, const struct tiling_fn *fn,
                      const struct file_const *c, void *userdata)
{
        const struct tile_scan *t = userdata;
        size_t first = body_first(f, fn);
        char ub[64], tile[64];
        bool bytes;

        if (first == CXX_NONE || !name_has(f, c->name, tile_words) ||
            !cxx_range_mentions(f, fn->open, fn->close, cxx_tok_text(f, c->name),
                                cxx_tok_len(f, c->name)))
                return 0;
        bytes = name_has(f, c->name, (const char *const[]){ "BYTES", NULL });
        cxx_fresh_name(f, "ubBytes", ub, sizeof(ub));
        cxx_fresh_name(f, "tileFromUb", tile, sizeof(tile));
        for (size_t v = 0; v < ARRAY_SIZE(tile_variants); v++) {
                const struct tile_variant *tv = &tile_variants[v];
                char *lines[4], *per;
                if (bytes && tv->input_bytes)
                        continue; /* a byte count has no element size to vary */
                site_begin(scan, f, c->name, "%.*s from the UB over %zu live buffers (%s)",
                           (int)cxx_tok_len(f, c->name), cxx_tok_text(f, c->name), t->live,
                           tv->what);
                lines[0] = str_printf("uint64_t %s = 0;", ub);
                lines[1] = str_printf("platform_ascendc::PlatformAscendC(%s->GetPlatformInfo())"
                                      ".GetCoreMemSize(platform_ascendc::CoreMemType::UB, %s);",
                                      fn->context, ub);
                lines[2] = str_printf("/* the kernel holds %zu UB buffers at once (its InitBuffer "
                                      "calls times their depth); tiles are 512-byte aligned */",
                                      t->live);
                if (bytes)
                        per = strdup("");
                else if (tv->input_bytes)
                        per = str_printf(" / ge::GetSizeByDataType(%s->GetInputDesc(0)"
                                         "->GetDataType())",
                                         fn->context);
                else
                        per = strdup(" / 4");
                lines[3] = per ? str_printf("uint32_t %s = (uint32_t)(%s / %zu / 512 * 512%s);",
                                            tile, ub, t->live * tv->share, per)
                               : NULL;
                free(per);
                for (size_t l = 0; l < 4; l++) {
                        site_insert_before(scan, f, first, lines[l]);
                        free(lines[l]);
                }
                replace_uses(scan, f, fn, c, tile);
                drop_if_unused(scan, f, fn, c);
                ensure_include(scan, f, PLATFORM_HEADER);
                if (site_end(scan) < 0)
                        return -ENOMEM;
        }
        return 0;
}

/*
 * A fixed tile (a constant named like TILE_LENGTH or TILE_BYTES used by a
 * tiling function that reads no UB size) is derived from the UB capacity
 * the platform reports, divided evenly among the kernel's live buffers.
 */
static int scan_tile_from_ub(struct motif_scan *scan)
{
        struct tile_scan t = { live_buffers(scan) };

        if (t.live == 0 || t.live > LIVE_BUFFERS_MAX)
                return 0;
        for (size_t k = 0; k < scan->n_files; k++) {
                struct cxx_file *f = &scan->files[k];
                struct tiling_fn fn;
                int r;
                if (!scan_is_host(f) || !tiling_function(f, &fn) ||
                    body_mentions(f, &fn, "GetCoreMemSize"))
                        continue;
                r = for_each_const(scan, f, &fn, tile_visit, &t);
                if (r < 0)
                        return r;
        }
        return 0;
}

/* ------------------------------------------------------------ remainder_to_first_cores */

/*
 * The four fields of a former/tail core split, as the AscendC tutorials
 * name them: formerNum cores take formerLength elements each and tailNum
 * cores tailLength each (bigCore... and smallCore... alike).
 */
enum split_role {
        SPLIT_FORMER_NUM,
        SPLIT_FORMER_LENGTH,
        SPLIT_TAIL_NUM,
        SPLIT_TAIL_LENGTH,
        SPLIT_ROLES
};

static const char *const split_names[SPLIT_ROLES] = { "formerNum", "formerLength", "tailNum",
                                                      "tailLength" };

/* The role of a tiling field by its name, or SPLIT_ROLES for none. */
static enum split_role split_role_of(const char *field, size_t len)
{
        char upper[96];
        bool former, tail, length, count;

        if (len >= sizeof(upper))
                return SPLIT_ROLES;
        for (size_t i = 0; i < len; i++)
                upper[i] = (char)toupper((unsigned char)field[i]);
        upper[len] = '\0';
        former = strstr(upper, "FORMER") || strstr(upper, "BIG");
        tail = strstr(upper, "TAIL") || strstr(upper, "SMALL") || strstr(upper, "LAST");
        length = strstr(upper, "LEN") || strstr(upper, "DATANUM") || strstr(upper, "ELEM") ||
                 strstr(upper, "SIZE");
        /* a loop, tile or block count per core is not the number of such cores */
        count = !length && !strstr(upper, "LOOP") && !strstr(upper, "TILE") &&
                !strstr(upper, "BLOCK") && !strstr(upper, "DATA") &&
                ((len >= 3 && strcmp(upper + len - 3, "NUM") == 0) ||
                 (len >= 5 && strcmp(upper + len - 5, "COUNT") == 0));
        if (former == tail || length == count)
                return SPLIT_ROLES; /* "bigCoreTailDataNum" is neither side's */
        if (former)
                return length ? SPLIT_FORMER_LENGTH : SPLIT_FORMER_NUM;
        return length ? SPLIT_TAIL_LENGTH : SPLIT_TAIL_NUM;
}

struct split_call {
        size_t first, last; /* the statement "tiling.set_X(arg);" */
        struct cxx_arg arg;
        char field[64];
        int calls;
};

/* Whether any kernel file names the field (the kernel reads it from the tiling data). */
static bool kernel_reads(const struct motif_scan *scan, const char *field)
{
        for (size_t k = 0; k < scan->n_files; k++) {
                const struct cxx_file *f = &scan->files[k];
                if (scan_is_kernel(f) && cxx_range_mentions(f, 0, f->tokens.n ? f->tokens.n - 1 : 0,
                                                            field, strlen(field)))
                        return true;
        }
        return false;
}

/* The four set_ calls of the split in the tiling function; false unless each is there once. */
static bool split_calls(const struct cxx_file *f, const struct tiling_fn *fn,
                        struct split_call calls[SPLIT_ROLES])
{
        memset(calls, 0, SPLIT_ROLES * sizeof(*calls));
        for (size_t i = fn->open + 1; i < fn->close; i++) {
                struct cxx_call call;
                size_t first, last, len = cxx_tok_len(f, i);
                enum split_role role;
                if (!cxx_tok_is_ident(f, i) || len <= 4 ||
                    memcmp(cxx_tok_text(f, i), "set_", 4) != 0)
                        continue;
                role = split_role_of(cxx_tok_text(f, i) + 4, len - 4);
                if (role == SPLIT_ROLES)
                        continue;
                first = cxx_stmt_first(f, i);
                last = cxx_stmt_last(f, first);
                if (last == CXX_NONE || !cxx_stmt_call(f, first, last, &call) || call.name != i ||
                    call.n_args != 1 || len - 4 >= sizeof(calls[role].field))
                        return false; /* set some other way: not ours to rewrite */
                calls[role].first = first;
                calls[role].last = last;
                calls[role].arg = call.args[0];
                snprintf(calls[role].field, sizeof(calls[role].field), "%.*s", (int)(len - 4),
                         cxx_tok_text(f, i) + 4);
                calls[role].calls++;
        }
        for (int r = 0; r < SPLIT_ROLES; r++)
                if (calls[r].calls != 1)
                        return false;
        return true;
}

/*
 * A host that leaves the whole remainder to one tail core (tailNum set to
 * 1) while the kernel reads formerNum, formerLength and tailLength from
 * the tiling data (so that the tail cores are the ones past formerNum): the split is recomputed so that every
 * core takes q or q + 1 units (a unit: 32 bytes of input 0, halved until
 * it divides formerLength), the first r cores one more.  A total that is
 * no whole number of units, or fewer units than cores, keeps the split as
 * written, so the ragged end stays where the kernel expects it.
 */
static int scan_remainder_to_first_cores(struct motif_scan *scan)
{
        for (size_t k = 0; k < scan->n_files; k++) {
                struct cxx_file *f = &scan->files[k];
                struct split_call c[SPLIT_ROLES];
                struct tiling_fn fn;
                char names[SPLIT_ROLES][64], total[64], cores[64], unit[64], elem[64];
                char *expr[SPLIT_ROLES], *lines[16];
                size_t first = CXX_NONE, n = 0;
                bool reads = true;

                if (!scan_is_host(f) || !tiling_function(f, &fn) || !split_calls(f, &fn, c) ||
                    c[SPLIT_TAIL_NUM].arg.first != c[SPLIT_TAIL_NUM].arg.last ||
                    !cxx_tok_is_number(f, c[SPLIT_TAIL_NUM].arg.first, "1"))
                        continue;
                for (int r = 0; r < SPLIT_ROLES; r++) {
                        /* the tail cores are often simply the rest: tailNum may go unread */
                        if (r != SPLIT_TAIL_NUM)
                                reads = reads && kernel_reads(scan, c[r].field);
                        first = c[r].first < first ? c[r].first : first;
                }
                if (!reads)
                        continue;
                for (int r = 0; r < SPLIT_ROLES; r++) {
                        char base[64];
                        snprintf(base, sizeof(base), "split%c%s", toupper(split_names[r][0]),
                                 split_names[r] + 1);
                        cxx_fresh_name(f, base, names[r], sizeof(names[r]));
                        expr[r] = cxx_range_dup(f, c[r].arg.first, c[r].arg.last);
                }
                cxx_fresh_name(f, "splitTotal", total, sizeof(total));
                cxx_fresh_name(f, "splitCores", cores, sizeof(cores));
                cxx_fresh_name(f, "splitUnit", unit, sizeof(unit));
                cxx_fresh_name(f, "splitElemBytes", elem, sizeof(elem));
                site_begin(scan, f, c[SPLIT_TAIL_NUM].first,
                           "spread the remainder over the first cores (%s, %s, %s, %s), not all "
                           "to the last",
                           c[0].field, c[1].field, c[2].field, c[3].field);
                lines[n++] = str_printf("/* every core takes q or q + 1 units, the first r one "
                                        "more, instead of the last core taking the remainder */");
                lines[n++] = str_printf("uint64_t %s = (uint64_t)(%s) * (%s) + (uint64_t)(%s) * "
                                        "(%s);",
                                        total, expr[0], expr[1], expr[2], expr[3]);
                lines[n++] =
                    str_printf("uint64_t %s = (uint64_t)(%s) + (%s);", cores, expr[0], expr[2]);
                lines[n++] = str_printf("uint64_t %s = (uint64_t)ge::GetSizeByDataType(%s->"
                                        "GetInputDesc(0)->GetDataType());",
                                        elem, fn.context);
                lines[n++] = str_printf("uint64_t %s = %s > 0 && %s <= 32 ? 32 / %s : 1;", unit,
                                        elem, elem, elem);
                lines[n++] = str_printf("while (%s > 1 && (uint64_t)(%s) %% %s != 0) %s /= 2;",
                                        unit, expr[1], unit, unit);
                lines[n++] =
                    str_printf("uint64_t %s = %s, %s = %s, %s = %s, %s = %s;", names[0], expr[0],
                               names[1], expr[1], names[2], expr[2], names[3], expr[3]);
                lines[n++] = str_printf("if (%s > 0 && %s %% %s == 0 && %s / %s >= %s) {", cores,
                                        total, unit, total, unit, cores);
                lines[n++] = str_printf("%s%s = %s / %s %% %s;", cxx_indent_unit(f), names[0],
                                        total, unit, cores);
                lines[n++] = str_printf("%s%s = (%s / %s / %s + 1) * %s;", cxx_indent_unit(f),
                                        names[1], total, unit, cores, unit);
                lines[n++] =
                    str_printf("%s%s = %s - %s;", cxx_indent_unit(f), names[2], cores, names[0]);
                lines[n++] = str_printf("%s%s = %s / %s / %s * %s;", cxx_indent_unit(f), names[3],
                                        total, unit, cores, unit);
                lines[n++] = str_printf("}");
                for (size_t l = 0; l < n; l++) {
                        if (lines[l])
                                site_insert_before(scan, f, first, lines[l]);
                        else
                                site_fail(scan);
                        free(lines[l]);
                }
                for (int r = 0; r < SPLIT_ROLES; r++) {
                        site_replace(scan, f, c[r].arg.first, c[r].arg.last, names[r]);
                        free(expr[r]);
                }
                if (site_end(scan) < 0)
                        return -ENOMEM;
        }
        return 0;
}

/* ------------------------------------------------------------ the table */

static const struct tiling_move moves[] = {
        { "cores_from_platform",
          "a fixed core-count constant becomes the platform's vector core count (GetCoreNumAiv)",
          scan_cores_from_platform },
        { "blockdim_from_size",
          "the core count is capped at one core per minimum useful bytes of input, for small "
          "inputs",
          scan_blockdim_from_size },
        { "tile_from_ub",
          "a fixed tile length becomes the UB capacity (GetCoreMemSize) over the kernel's live "
          "buffers, 512-byte aligned",
          scan_tile_from_ub },
        { "remainder_to_first_cores",
          "a former/tail core split that leaves the remainder to one tail core spreads it over "
          "the first cores, one unit each, where the kernel reads the split from the tiling data",
          scan_remainder_to_first_cores },
};

size_t tiling_move_count(void)
{
        return ARRAY_SIZE(moves);
}

const struct tiling_move *tiling_move_at(size_t i)
{
        return i < ARRAY_SIZE(moves) ? &moves[i] : NULL;
}

const struct tiling_move *tiling_move_find(const char *name)
{
        for (size_t i = 0; name && i < ARRAY_SIZE(moves); i++)
                if (strcmp(moves[i].name, name) == 0)
                        return &moves[i];
        return NULL;
}

/* The move as a forward-only motif, so that detection and edits go through one machinery. */
static struct motif as_motif(const struct tiling_move *move)
{
        return (struct motif){ .name = move->name,
                               .title = move->description,
                               .description = move->description,
                               .bottleneck = "",
                               .forward = move->scan,
                               .whole_operator = true };
}

int tiling_move_detect(const struct tiling_move *move, const struct motif_file *files,
                       size_t n_files, struct motif_site **ret_sites, size_t *ret_n)
{
        struct motif m;

        if (!move)
                return -EINVAL;
        m = as_motif(move);
        return motif_detect(&m, MOTIF_FORWARD, files, n_files, ret_sites, ret_n);
}

int tiling_move_apply(const struct tiling_move *move, const struct motif_file *files,
                      size_t n_files, size_t site, struct motif_file **ret_changed,
                      size_t *ret_n_changed)
{
        struct motif m;

        if (!move || site == MOTIF_ALL_SITES)
                return -EINVAL;
        m = as_motif(move);
        return motif_apply(&m, MOTIF_FORWARD, files, n_files, site, ret_changed, ret_n_changed);
}
