/* SPDX-License-Identifier: MIT */
/*
 * Which literals in a knob's place have a fixed meaning, so that Stage I
 * must never move them: a tiling key (a value SetTilingKey receives, the
 * names it is made of, the kernel's TILING_KEY_IS numbers), a dtype's byte
 * width or elements per 32-byte block, and an enum-like selector (an enum
 * member, a name compared with == or used as a case label, an input,
 * output, attribute or dimension index, a mode, type, format, axis or flag,
 * a named number such as NUM_TWO).  A tile size, a buffer count or a core
 * count stays a choice.  Decided from the names' words and from how the
 * operator's own files use them (struct gene_uses).
 */
#include "genes-internal.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------ a set of names */

struct name_set {
        char **slots; /* open addressing, NULL: empty */
        size_t cap, n;
};

static uint64_t hash_name(const char *s, size_t len)
{
        uint64_t h = 1469598103934665603ull;

        for (size_t i = 0; i < len; i++)
                h = (h ^ (unsigned char)s[i]) * 1099511628211ull;
        return h;
}

static bool set_has(const struct name_set *set, const char *s, size_t len)
{
        if (!set->cap)
                return false;
        for (size_t k = hash_name(s, len) & (set->cap - 1);; k = (k + 1) & (set->cap - 1)) {
                const char *slot = set->slots[k];
                if (!slot)
                        return false;
                if (strlen(slot) == len && memcmp(slot, s, len) == 0)
                        return true;
        }
}

static int set_grow(struct name_set *set)
{
        size_t cap = set->cap ? set->cap * 2 : 64;
        char **slots = calloc(cap, sizeof(*slots));

        if (!slots)
                return -ENOMEM;
        for (size_t i = 0; i < set->cap; i++) {
                char *s = set->slots[i];
                size_t k;
                if (!s)
                        continue;
                for (k = hash_name(s, strlen(s)) & (cap - 1); slots[k]; k = (k + 1) & (cap - 1))
                        ;
                slots[k] = s;
        }
        free(set->slots);
        set->slots = slots;
        set->cap = cap;
        return 0;
}

/* 1 when added, 0 when it was there, -ENOMEM. */
static int set_add(struct name_set *set, const char *s, size_t len)
{
        size_t k;

        if (set_has(set, s, len))
                return 0;
        if ((set->n + 1) * 2 > set->cap && set_grow(set) < 0)
                return -ENOMEM;
        for (k = hash_name(s, len) & (set->cap - 1); set->slots[k]; k = (k + 1) & (set->cap - 1))
                ;
        set->slots[k] = strndup(s, len);
        if (!set->slots[k])
                return -ENOMEM;
        set->n++;
        return 1;
}

static void set_release(struct name_set *set)
{
        for (size_t i = 0; i < set->cap; i++)
                free(set->slots[i]);
        free(set->slots);
        memset(set, 0, sizeof(*set));
}

/* ------------------------------------------------------------ the uses */

/* "target is made of source": an assignment, #define or return, followed back from a key. */
struct edge {
        char *target, *source;
};

#define KEY_NUMBERS_MAX 256

struct gene_uses {
        struct name_set keys;        /* what a tiling key is made of (after close) */
        struct name_set compared;    /* whole operands of == and != against a name, case labels */
        struct name_set indexes;     /* an input, output, attribute or dimension index */
        struct name_set kernel_keys; /* names the kernel's TILING_KEY_IS takes */
        struct name_set capacities;  /* an array's length: x[NAME];, TILING_DATA_FIELD_DEF_ARR */
        struct name_set bounds;      /* whole operands of <, >, <=, >= that guard a failure */
        struct name_set computed;    /* operands of arithmetic, assigned, returned, clamped */
        struct edge *edges;
        size_t n_edges, cap_edges;
        int64_t key_numbers[KEY_NUMBERS_MAX]; /* the kernel's TILING_KEY_IS numbers */
        size_t n_key_numbers;
};

int gene_uses_new(struct gene_uses **ret)
{
        *ret = calloc(1, sizeof(**ret));
        return *ret ? 0 : -ENOMEM;
}

struct gene_uses *gene_uses_free(struct gene_uses *u)
{
        if (!u)
                return NULL;
        set_release(&u->keys);
        set_release(&u->compared);
        set_release(&u->indexes);
        set_release(&u->kernel_keys);
        set_release(&u->capacities);
        set_release(&u->bounds);
        set_release(&u->computed);
        for (size_t i = 0; i < u->n_edges; i++) {
                free(u->edges[i].target);
                free(u->edges[i].source);
        }
        free(u->edges);
        free(u);
        return NULL;
}

static const char *tok_text(const struct token_list *l, size_t i)
{
        return l->text + l->tokens[i].start;
}

static bool is_ident(const struct token_list *l, size_t i)
{
        return i < l->n && l->tokens[i].kind == TOKEN_IDENTIFIER;
}

static bool is_number(const struct token_list *l, size_t i)
{
        return i < l->n && l->tokens[i].kind == TOKEN_NUMBER;
}

static int add_name(struct name_set *set, const struct token_list *l, size_t i)
{
        int r = set_add(set, tok_text(l, i), l->tokens[i].len);

        return r < 0 ? r : 0;
}

static int add_edge(struct gene_uses *u, const struct token_list *l, size_t target, size_t source)
{
        struct edge *e;

        if (u->n_edges == u->cap_edges) {
                size_t cap = u->cap_edges ? 2 * u->cap_edges : 64;
                struct edge *grown = realloc(u->edges, cap * sizeof(*grown));
                if (!grown)
                        return -ENOMEM;
                u->edges = grown;
                u->cap_edges = cap;
        }
        e = &u->edges[u->n_edges];
        e->target = strndup(tok_text(l, target), l->tokens[target].len);
        e->source = strndup(tok_text(l, source), l->tokens[source].len);
        if (!e->target || !e->source) {
                free(e->target);
                free(e->source);
                return -ENOMEM;
        }
        u->n_edges++;
        return 0;
}

/*
 * The end of the expression starting at i: the token before the ';' or
 * ',' that ends it at its own depth, or before the bracket that closes
 * around it.  In a directive, the directive's last token.
 */
static size_t expression_end(const struct token_list *l, size_t i, bool directive)
{
        size_t last = i, j;
        int depth = 0;

        for (j = i; j < l->n; j = token_next(l, j)) {
                if (directive) {
                        if (!l->tokens[j].in_directive || l->tokens[j].kind == TOKEN_DIRECTIVE)
                                break;
                } else if (l->tokens[j].in_directive) {
                        break;
                }
                if (token_is(l, j, "(") || token_is(l, j, "[") || token_is(l, j, "{"))
                        depth++;
                else if (token_is(l, j, ")") || token_is(l, j, "]") || token_is(l, j, "}"))
                        depth--;
                if (depth < 0 ||
                    (depth == 0 && !directive && (token_is(l, j, ";") || token_is(l, j, ","))))
                        break;
                last = j;
        }
        return last;
}

/* The '(' of a call named at i, over template arguments; l->n when none. */
static size_t call_open(const struct token_list *l, size_t i)
{
        size_t j = token_next(l, i);
        int depth = 0;

        if (token_is(l, j, "<")) {
                for (; j < l->n; j = token_next(l, j)) {
                        if (token_is(l, j, "<"))
                                depth++;
                        else if (token_is(l, j, ">") && --depth == 0)
                                break;
                        else if (token_is(l, j, ";") || token_is(l, j, "{"))
                                return l->n;
                }
                j = token_next(l, j);
        }
        return token_is(l, j, "(") ? j : l->n;
}

/*
 * Whether the identifier at i is the callee of a call whose arguments
 * make up its value: a cast, or a macro or function named for a key
 * (GET_TPL_TILING_KEY(...)).  Other calls' arguments only steer what the
 * callee computes, as a condition would: the callee's returns say what
 * it is made of.
 */
static bool passes_arguments(const struct token_list *l, size_t i)
{
        char name[64];

        if (l->tokens[i].len >= sizeof(name))
                return false;
        snprintf(name, sizeof(name), "%.*s", (int)l->tokens[i].len, tok_text(l, i));
        return strstr(name, "_cast") || strstr(name, "KEY") || strstr(name, "Key");
}

/*
 * Calls fn for every identifier of [first, last] that makes up the
 * expression's value: not the arguments of a call unless it passes them.
 */
static int value_names(const struct token_list *l, size_t first, size_t last,
                       int (*fn)(struct gene_uses *, const struct token_list *, size_t, size_t),
                       struct gene_uses *u, size_t target)
{
        int depth = 0, r = 0;

        /* cond ? a : b is a or b: the condition only chooses */
        for (size_t j = first; j <= last && j < l->n; j++) {
                if (token_is(l, j, "(") || token_is(l, j, "[") || token_is(l, j, "{"))
                        depth++;
                else if (token_is(l, j, ")") || token_is(l, j, "]") || token_is(l, j, "}"))
                        depth--;
                else if (depth == 0 && token_is(l, j, "?")) {
                        first = j + 1;
                        break;
                }
        }
        for (size_t j = first; j <= last && j < l->n && r == 0; j++) {
                size_t open;
                if (!is_ident(l, j))
                        continue;
                r = fn(u, l, target, j);
                open = call_open(l, j);
                if (r == 0 && open < l->n && open <= last && !passes_arguments(l, j))
                        j = token_match(l, open);
        }
        return r;
}

/* An edge from target to every name that makes up [first, last]. */
static int add_edges(struct gene_uses *u, const struct token_list *l, size_t target, size_t first,
                     size_t last)
{
        return value_names(l, first, last, add_edge, u, target);
}

static bool is_assignment(const struct token_list *l, size_t i)
{
        static const char *const ops[] = { "=", "+=", "-=", "*=", "|=", "&=", "^=", "<<=" };

        for (size_t k = 0; k < sizeof(ops) / sizeof(*ops); k++)
                if (token_is(l, i, ops[k]))
                        return true;
        return false;
}

/*
 * Whether the token beside a name makes it part of a larger operand of ==
 * (x % NAME == 0, NAME.size() == n): a binary operator, member access, or
 * after it a call or subscript.
 */
static bool joins_operand(const struct token_list *l, size_t i, bool after)
{
        static const char *const ops[] = { "+", "-",  "*",  "/", "%", "<<", ">>", "&", "|", "^",
                                           ".", "->", "::", "<", ">", "<=", ">=", "!", "~", NULL };

        if (i >= l->n)
                return false;
        for (const char *const *op = ops; *op; op++)
                if (token_is(l, i, *op))
                        return true;
        return after && (token_is(l, i, "(") || token_is(l, i, "["));
}

/* A call that takes an index first: GetInputShape(IDX), GetAttrPointer<T>(IDX), GetDim(DIM_0). */
static bool takes_an_index(const struct token_list *l, size_t i)
{
        static const char *const parts[] = { "Input", "Output", "Attr",  "Dim",
                                             "Desc",  "Shape",  "Tensor" };
        static const char *const exact[] = { "GetInt", "GetFloat",   "GetBool",
                                             "GetStr", "GetListInt", "GetListFloat" };
        const char *s = tok_text(l, i);
        size_t len = l->tokens[i].len;
        char name[64];

        if (len >= sizeof(name) || len < 4)
                return false;
        memcpy(name, s, len);
        name[len] = '\0';
        for (size_t k = 0; k < sizeof(exact) / sizeof(*exact); k++)
                if (strcmp(name, exact[k]) == 0)
                        return true;
        if (strncmp(name, "Get", 3) != 0 && strncmp(name, "Set", 3) != 0)
                return false;
        if (strstr(name, "Block") || strstr(name, "Tiling") || strstr(name, "Workspace") ||
            strstr(name, "Num") || strstr(name, "Size"))
                return false;
        for (size_t k = 0; k < sizeof(parts) / sizeof(*parts); k++)
                if (strstr(name, parts[k]))
                        return true;
        return false;
}

static int learn_comparison(struct gene_uses *u, const struct token_list *l, size_t op)
{
        size_t a = token_prev(l, op), b = token_next(l, op);
        int r = 0;

        /* NAME == x, where NAME is the whole left operand and x no literal */
        if (a != (size_t)-1 && is_ident(l, a) && !is_number(l, b) &&
            !joins_operand(l, token_prev(l, a), false))
                r = add_name(&u->compared, l, a);
        /* x == NAME */
        if (r == 0 && is_ident(l, b) && !(a != (size_t)-1 && is_number(l, a)) &&
            !joins_operand(l, token_next(l, b), true))
                r = add_name(&u->compared, l, b);
        return r;
}

static bool is_one_of(const struct token_list *l, size_t i, const char *const *ops)
{
        if (i >= l->n)
                return false;
        for (; *ops; ops++)
                if (token_is(l, i, *ops))
                        return true;
        return false;
}

/* The identifier naming the call whose parentheses directly hold token i, or l->n. */
static size_t enclosing_callee(const struct token_list *l, size_t i)
{
        int depth = 0;

        for (size_t j = token_prev(l, i); j != (size_t)-1; j = token_prev(l, j)) {
                if (token_is(l, j, ")")) {
                        depth++;
                } else if (token_is(l, j, "(")) {
                        size_t callee = token_prev(l, j);
                        if (depth-- > 0)
                                continue;
                        return callee != (size_t)-1 && is_ident(l, callee) ? callee : l->n;
                } else if (token_is(l, j, ";") || token_is(l, j, "{") || token_is(l, j, "}")) {
                        return l->n;
                }
        }
        return l->n;
}

/*
 * The call or if whose parentheses hold token i, through bare ones: for
 * "if ((a > MAX) || b)", the if.  l->n when none.
 */
static size_t enclosing_condition(const struct token_list *l, size_t i)
{
        size_t j = i;

        for (;;) {
                size_t callee = enclosing_callee(l, j), open;
                if (callee < l->n)
                        return callee;
                /* a bare '(': go on from it */
                for (open = token_prev(l, j); open != (size_t)-1 && !token_is(l, open, "(");
                     open = token_prev(l, open))
                        if (token_is(l, open, ";") || token_is(l, open, "{") ||
                            token_is(l, open, "}"))
                                return l->n;
                if (open == (size_t)-1)
                        return l->n;
                j = open;
        }
}

/* Whether the tokens [first, last] fail: OP_LOGE, GRAPH_FAILED, return -1, return false. */
static bool fails(const struct token_list *l, size_t first, size_t last)
{
        for (size_t j = first; j <= last && j < l->n; j = token_next(l, j)) {
                char name[64];
                if (token_is(l, j, "return") &&
                    (token_is(l, token_next(l, j), "-") || token_is(l, token_next(l, j), "false")))
                        return true;
                if (!is_ident(l, j) || l->tokens[j].len >= sizeof(name))
                        continue;
                snprintf(name, sizeof(name), "%.*s", (int)l->tokens[j].len, tok_text(l, j));
                if (strstr(name, "FAIL") || strstr(name, "LOGE") || strstr(name, "ERROR") ||
                    strstr(name, "Error"))
                        return true;
        }
        return false;
}

/*
 * Whether the comparison at i guards a failure: an argument of a CHECK
 * macro (OP_TILING_CHECK(n > MAX, OP_LOGE(...), return ge::GRAPH_FAILED)),
 * or the condition of an if whose statement fails.  A comparison that
 * picks a path (length > SPLIT_LIMIT ? ...) is a threshold, a choice.
 */
static bool guards_failure(const struct token_list *l, size_t i)
{
        size_t callee = enclosing_condition(l, i), open, close, end;
        char name[64];

        if (callee >= l->n || l->tokens[callee].len >= sizeof(name))
                return false;
        snprintf(name, sizeof(name), "%.*s", (int)l->tokens[callee].len, tok_text(l, callee));
        if (strstr(name, "CHECK"))
                return true;
        if (strcmp(name, "if") != 0)
                return false;
        open = token_next(l, callee);
        close = token_match(l, open);
        if (close >= l->n)
                return false;
        end = token_next(l, close);
        if (token_is(l, end, "{"))
                end = token_match(l, end);
        else
                while (end < l->n && !token_is(l, end, ";"))
                        end = token_next(l, end);
        return fails(l, token_next(l, close), end);
}

/* std::min, Max, CeilDiv, AlignUp, RoundDown: a call whose arguments are its value. */
static bool is_clamp_or_rounding(const struct token_list *l, size_t callee)
{
        static const char *const parts[] = { "min",  "Min",  "MIN",  "max",   "Max",   "MAX",
                                             "Div",  "DIV",  "div",  "Align", "ALIGN", "align",
                                             "Ceil", "CEIL", "ceil", "Round", "ROUND", "round" };
        char name[64];

        if (callee >= l->n || l->tokens[callee].len >= sizeof(name))
                return false;
        snprintf(name, sizeof(name), "%.*s", (int)l->tokens[callee].len, tok_text(l, callee));
        for (size_t k = 0; k < sizeof(parts) / sizeof(*parts); k++)
                if (strstr(name, parts[k]))
                        return true;
        return false;
}

/*
 * How the name at i is used, for the limits a tiling only checks against:
 * an array's length in a declaration (uint32_t list[MAX_CORE_COUNT];), a
 * whole operand of <, >, <= or >= that guards a failure, or a value
 * something is computed from (arithmetic, an assignment's or a return's
 * value, an arm of ?:, the argument of a clamp or rounding call, a
 * threshold that picks a path).
 */
static int learn_limit_use(struct gene_uses *u, const struct token_list *l, size_t i)
{
        static const char *const relational[] = { "<", ">", "<=", ">=", NULL };
        static const char *const arithmetic[] = { "+", "-", "*", "/", "%", "<<", ">>", NULL };
        static const char *const declared_end[] = { ";", "=", "{", "[", ")", ",", NULL };
        static const char *const not_types[] = { "return", "case", "sizeof", "delete",
                                                 "else",   "do",   NULL };
        size_t prev = token_prev(l, i), next = token_next(l, i);

        if (prev == (size_t)-1 || token_is(l, prev, "define"))
                return 0;
        if (token_is(l, prev, "[") && token_is(l, next, "]")) {
                size_t array = token_prev(l, prev);
                size_t type = array == (size_t)-1 ? (size_t)-1 : token_prev(l, array);
                if (type != (size_t)-1 && is_ident(l, array) &&
                    (is_ident(l, type) || token_is(l, type, "*")) &&
                    !is_one_of(l, type, not_types) &&
                    is_one_of(l, token_next(l, next), declared_end))
                        return add_name(&u->capacities, l, i);
                return 0;
        }
        /* a bound checked before failing, or a threshold that picks a path */
        if ((is_one_of(l, prev, relational) && !joins_operand(l, next, true)) ||
            (is_one_of(l, next, relational) && !joins_operand(l, prev, false)))
                return add_name(guards_failure(l, i) ? &u->bounds : &u->computed, l, i);
        if (is_assignment(l, prev) || token_is(l, prev, "return") || token_is(l, prev, "?") ||
            token_is(l, prev, ":") || is_one_of(l, prev, arithmetic) ||
            is_one_of(l, next, arithmetic) ||
            ((token_is(l, prev, "(") || token_is(l, prev, ",")) &&
             is_clamp_or_rounding(l, enclosing_callee(l, i))))
                return add_name(&u->computed, l, i);
        return 0;
}

/* TILING_DATA_FIELD_DEF_ARR(type, LENGTH, field): the length is a layout the kernel shares. */
static int add_field_array_length(struct gene_uses *u, const struct token_list *l, size_t open)
{
        size_t comma = token_next(l, token_next(l, open)), length = token_next(l, comma);

        if (token_is(l, comma, ",") && is_ident(l, length) &&
            token_is(l, token_next(l, length), ","))
                return add_name(&u->capacities, l, length);
        return 0;
}

static int add_key_seed(struct gene_uses *u, const struct token_list *l, size_t target, size_t name)
{
        (void)target;
        return add_name(&u->keys, l, name);
}

/* The names SetTilingKey(...) is given, as seeds of the key's names. */
static int add_key_seeds(struct gene_uses *u, const struct token_list *l, size_t open)
{
        size_t close = token_match(l, open);

        if (close >= l->n || close == open + 1)
                return 0;
        return value_names(l, token_next(l, open), token_prev(l, close), add_key_seed, u, 0);
}

/* The kernel's TILING_KEY_IS(...): its names and numbers. */
static int add_kernel_keys(struct gene_uses *u, const struct token_list *l, size_t open)
{
        size_t close = token_match(l, open);
        int r = 0;

        for (size_t j = open + 1; j < close && j < l->n && r == 0; j++) {
                if (is_ident(l, j))
                        r = add_name(&u->kernel_keys, l, j);
                else if (is_number(l, j) && u->n_key_numbers < KEY_NUMBERS_MAX)
                        u->key_numbers[u->n_key_numbers++] = strtoll(tok_text(l, j), NULL, 0);
        }
        return r;
}

/* Edges from each function's name to what it returns: SetTilingKey(GetTilingKey()). */
static int learn_returns(struct gene_uses *u, const struct token_list *l)
{
        struct cxx_file f = { .path = "", .text = l->text, .len = l->text_len, .tokens = *l };
        struct cxx_func *funcs = NULL;
        size_t n = 0;
        int r = cxx_funcs_find(&f, &funcs, &n);

        for (size_t k = 0; k < n && r == 0; k++) {
                if (funcs[k].name == CXX_NONE)
                        continue;
                for (size_t j = funcs[k].open; j < funcs[k].close && r == 0; j++)
                        if (token_is(l, j, "return") && token_next(l, j) < funcs[k].close)
                                r = add_edges(u, l, funcs[k].name, token_next(l, j),
                                              expression_end(l, token_next(l, j), false));
        }
        free(funcs);
        return r;
}

int gene_uses_learn(struct gene_uses *u, const struct token_list *l, bool kernel)
{
        int r = 0;

        for (size_t i = 0; i < l->n && r == 0; i++) {
                const struct token *t = &l->tokens[i];
                size_t prev, next;
                if (t->kind == TOKEN_COMMENT)
                        continue;
                if (kernel) {
                        if (token_is(l, i, "TILING_KEY_IS") && token_is(l, token_next(l, i), "("))
                                r = add_kernel_keys(u, l, token_next(l, i));
                        continue;
                }
                prev = token_prev(l, i);
                next = token_next(l, i);
                if (is_ident(l, i))
                        r = learn_limit_use(u, l, i);
                if (r == 0 && token_is(l, i, "TILING_DATA_FIELD_DEF_ARR") && token_is(l, next, "("))
                        r = add_field_array_length(u, l, next);
                if (r < 0)
                        break;
                if (t->kind == TOKEN_DIRECTIVE && token_is(l, next, "define")) {
                        /* #define NAME EXPR (not NAME(args)) */
                        size_t name = token_next(l, next), body = token_next(l, name);
                        if (is_ident(l, name) && body < l->n && l->tokens[body].in_directive &&
                            l->tokens[body].kind != TOKEN_DIRECTIVE &&
                            !(token_is(l, body, "(") &&
                              l->tokens[body].start == l->tokens[name].start + l->tokens[name].len))
                                r = add_edges(u, l, name, body, expression_end(l, body, true));
                        continue;
                }
                if (t->in_directive)
                        continue;
                if (is_assignment(l, i) && prev != (size_t)-1 && is_ident(l, prev) && next < l->n)
                        r = add_edges(u, l, prev, next, expression_end(l, next, false));
                else if (token_is(l, i, "==") || token_is(l, i, "!="))
                        r = learn_comparison(u, l, i);
                else if (token_is(l, i, "case") && is_ident(l, next))
                        r = add_name(&u->compared, l, next);
                else if (token_is(l, i, "SetTilingKey") && token_is(l, next, "("))
                        r = add_key_seeds(u, l, next);
                else if (is_ident(l, i) && takes_an_index(l, i)) {
                        size_t open = call_open(l, i), arg = token_next(l, open);
                        if (open < l->n && is_ident(l, arg) &&
                            (token_is(l, token_next(l, arg), ")") ||
                             token_is(l, token_next(l, arg), ",")))
                                r = add_name(&u->indexes, l, arg);
                }
        }
        if (r == 0 && !kernel)
                r = learn_returns(u, l);
        return r;
}

int gene_uses_close(struct gene_uses *u)
{
        bool grew = true;

        /* the kernel's key names are the host's key names too, where it shares them */
        for (size_t i = 0; i < u->kernel_keys.cap; i++)
                if (u->kernel_keys.slots[i] &&
                    set_add(&u->keys, u->kernel_keys.slots[i], strlen(u->kernel_keys.slots[i])) < 0)
                        return -ENOMEM;
        while (grew) {
                grew = false;
                for (size_t e = 0; e < u->n_edges; e++) {
                        int r;
                        if (!set_has(&u->keys, u->edges[e].target, strlen(u->edges[e].target)))
                                continue;
                        r = set_add(&u->keys, u->edges[e].source, strlen(u->edges[e].source));
                        if (r < 0)
                                return r;
                        grew |= r > 0;
                }
        }
        return 0;
}

/* ------------------------------------------------------------ names as words */

#define WORDS_MAX 12

struct words {
        char w[WORDS_MAX][32];
        size_t n;
};

/*
 * Splits a name at underscores (and whatever else is no letter or digit,
 * as in "ub_budget factor #2") and case changes, lower-cased: dtypeASize
 * is dtype, a, size.
 */
static void split_words(const char *name, struct words *ret)
{
        size_t len = 0;

        ret->n = 0;
        for (const char *c = name;; c++) {
                bool boundary = !*c || !isalnum((unsigned char)*c);
                if (!boundary && len > 0 && isupper((unsigned char)*c)) {
                        char before = c[-1];
                        /* fooBar, 3D, and the last capital of ABCdef starts a word */
                        boundary = islower((unsigned char)before) ||
                                   isdigit((unsigned char)before) ||
                                   (isupper((unsigned char)before) && islower((unsigned char)c[1]));
                }
                if (boundary && len > 0) {
                        ret->w[ret->n][len] = '\0';
                        if (++ret->n == WORDS_MAX)
                                return;
                        len = 0;
                }
                if (!*c)
                        return;
                if (isalnum((unsigned char)*c) && len + 1 < sizeof(ret->w[0]))
                        ret->w[ret->n][len++] = (char)tolower((unsigned char)*c);
        }
}

static bool in_list(const char *word, const char *const *list)
{
        for (; *list; list++)
                if (strcmp(word, *list) == 0)
                        return true;
        return false;
}

static bool has_word(const struct words *w, const char *const *list)
{
        for (size_t i = 0; i < w->n; i++)
                if (in_list(w->w[i], list))
                        return true;
        return false;
}

/* The byte width a dtype word names, 0 for none. */
static int dtype_width(const char *word)
{
        static const struct {
                const char *name;
                int width;
        } dtypes[] = {
                { "fp16", 2 },    { "half", 2 },      { "float16", 2 },     { "bf16", 2 },
                { "bfloat", 2 },  { "bfloat16", 2 },  { "int16", 2 },       { "uint16", 2 },
                { "b16", 2 },     { "f16", 2 },       { "fp32", 4 },        { "float", 4 },
                { "float32", 4 }, { "int32", 4 },     { "uint32", 4 },      { "b32", 4 },
                { "f32", 4 },     { "fp64", 8 },      { "double", 8 },      { "int64", 8 },
                { "uint64", 8 },  { "b64", 8 },       { "f64", 8 },         { "complex64", 8 },
                { "int8", 1 },    { "uint8", 1 },     { "b8", 1 },          { "bool", 1 },
                { "fp8", 1 },     { "complex32", 4 }, { "complex128", 16 }, { "i8", 1 },
                { "u8", 1 },      { "i16", 2 },       { "u16", 2 },         { "i32", 4 },
                { "u32", 4 },     { "i64", 8 },       { "u64", 8 },
        };

        for (size_t i = 0; i < sizeof(dtypes) / sizeof(*dtypes); i++)
                if (strcmp(word, dtypes[i].name) == 0)
                        return dtypes[i].width;
        return 0;
}

/* Every dtype word's width, when all agree; 0 for none, -1 when they differ. */
static int dtypes_width(const struct words *w)
{
        int width = 0;

        for (size_t i = 0; i < w->n; i++) {
                int d = dtype_width(w->w[i]);
                if (d && width && d != width)
                        return -1;
                if (d)
                        width = d;
        }
        return width;
}

/* Whether a word spells value: BYTE_LEN_4, FOUR_BYTE. */
static bool has_number_word(const struct words *w, int64_t value)
{
        static const char *const spelled[] = { "zero", "one",   "two",   "three", "four", "five",
                                               "six",  "seven", "eight", "nine",  "ten",  NULL };
        char text[24];

        snprintf(text, sizeof(text), "%lld", (long long)value);
        for (size_t i = 0; i < w->n; i++)
                if (strcmp(w->w[i], text) == 0 ||
                    (value >= 0 && value <= 10 && strcmp(w->w[i], spelled[value]) == 0))
                        return true;
        return false;
}

static const char *const width_words[] = { "byte",    "bytes",   "size",     "sizeof",
                                           "len",     "length",  "width",    "btype",
                                           "bytenum", "bytelen", "bytesize", NULL };
/* inputBytes = 4: a tensor's element, named for the tensor */
static const char *const type_words[] = { "dtype", "type",    "datatype", "data", "date",
                                          "elem",  "element", "ele",      "item", "dt",
                                          "input", "output",  "in",       "out",  NULL };
/* words of a tile, a buffer, a core count or a limit: a size named so is a choice */
static const char *const knob_words[] = { "tile",  "buffer", "buf",      "ub",        "core",
                                          "block", "blk",    "loop",     "repeat",    "factor",
                                          "max",   "min",    "limit",    "total",     "num",
                                          "count", "cnt",    "reserved", "workspace", NULL };

/* BYTE_LEN_4 = 4, SIZE_OF_FP32 = 4, FLOAT16_BYTES = 2, dtypeSize = 2, dataWidth = 4 */
static bool is_byte_width(const struct words *w, int64_t value)
{
        int width = dtypes_width(w);

        if (value != 1 && value != 2 && value != 4 && value != 8 && value != 16)
                return false;
        if (!has_word(w, width_words) || has_word(w, knob_words) || width < 0)
                return false;
        if (width)
                return width == value;
        return has_word(w, type_words) || has_number_word(w, value);
}

/* BLOCK_LEN_FP32 = 8, B16_BLOCK_ALIGN_NUM = 16, ELEMENTS_PER_BLOCK = 8, FP32_REPEAT = 64 */
static bool is_elements_per_block(const struct words *w, int64_t value)
{
        static const char *const block[] = { "block", "blk", NULL };
        static const char *const repeat[] = { "repeat", "rep", NULL };
        static const char *const per[] = { "per", "each", NULL };
        static const char *const elems[] = { "elem",   "elements", "element", "ele",
                                             "elenum", "num",      "data",    NULL };
        int width = dtypes_width(w);

        if (width > 0 && has_word(w, block) && value * width == 32)
                return true;
        if (width > 0 && has_word(w, repeat) && value * width == 256)
                return true;
        return width == 0 && has_word(w, per) && has_word(w, elems) &&
               (has_word(w, block) || has_word(w, repeat)) && value > 0 &&
               (value & (value - 1)) == 0 && value <= 256;
}

/* NUM_TWO = 2, TWO = 2, CONST_4 = 4, TWO_POWER_THREE = 8: a number under a name */
static bool is_named_number(const struct words *w)
{
        static const char *const numbers[] = { "zero",    "one",      "two",       "three",
                                               "four",    "five",     "six",       "seven",
                                               "eight",   "nine",     "ten",       "eleven",
                                               "twelve",  "sixteen",  "thirtytwo", "sixtyfour",
                                               "hundred", "thousand", NULL };
        static const char *const joints[] = { "num", "number", "const", "constant", "val", "value",
                                              "k",   "power",  "pow",   "times",    NULL };
        bool any = false;

        for (size_t i = 0; i < w->n; i++) {
                bool digits =
                    w->w[i][0] != '\0' && strspn(w->w[i], "0123456789") == strlen(w->w[i]);
                if (digits || in_list(w->w[i], numbers))
                        any = true;
                else if (!in_list(w->w[i], joints))
                        return false;
        }
        return any;
}

/* A constant's name: UPPER_CASE, or kCamelCase. */
static bool is_constant_name(const char *name)
{
        bool upper = false;

        if (name[0] == 'k' && isupper((unsigned char)name[1]))
                return true;
        for (const char *c = name; *c; c++) {
                if (islower((unsigned char)*c))
                        return false;
                upper |= isupper((unsigned char)*c);
        }
        return upper;
}

static bool is_ordinal(const char *word)
{
        static const char *const ordinals[] = { "zero",   "one",   "two",    "three",
                                                "four",   "five",  "six",    "seven",
                                                "eight",  "first", "second", "third",
                                                "fourth", "fifth", "last",   NULL };

        return in_list(word, ordinals) || (word[0] && strspn(word, "0123456789") == strlen(word));
}

/*
 * A dimension's or axis' index, or a rank: DIM_0, DIM_TWO, DIM2, LAST_DIM
 * in any name; W_DIM, MAX_DIM_NUM, NCDHW_DIMS, REDUCE_AXIS in a
 * constant's.  Not a core split (BLOCK_DIM, a matmul's mDim).
 */
static bool is_dimension(const char *name, const struct words *w)
{
        static const char *const cores[] = { "block", "core", "aiv", "aic", "cube", "vec", NULL };
        static const char *const dims[] = { "dim",  "dims", "dimension", "dimensions", "ndim",
                                            "rank", "axis", "axes",      NULL };

        if (has_word(w, cores))
                return false;
        for (size_t i = 0; i < w->n; i++) {
                const char *s = w->w[i];
                if (strncmp(s, "dim", 3) == 0 && s[3] &&
                    strspn(s + 3, "0123456789") == strlen(s + 3))
                        return true;
                if (in_list(s, dims) && ((i > 0 && is_ordinal(w->w[i - 1])) ||
                                         (i + 1 < w->n && is_ordinal(w->w[i + 1]))))
                        return true;
        }
        return is_constant_name(name) && has_word(w, dims);
}

/* INPUT_X_INDEX, GAMMA_IDX, kConv2DTransposeGroupsIdx, INPUT_2, ATTR_0 */
static bool is_index_name(const struct words *w)
{
        static const char *const index[] = { "idx", "index", "indices", NULL };
        static const char *const io[] = { "input", "output", "attr", "in", "out", NULL };

        if (has_word(w, index))
                return true;
        for (size_t i = 0; i < w->n; i++) {
                const char *s = w->w[i];
                size_t stem = strncmp(s, "index", 5) == 0 ? 5 : strncmp(s, "idx", 3) == 0 ? 3 : 0;
                if (stem && s[stem] && strspn(s + stem, "0123456789") == strlen(s + stem))
                        return true;
        }
        if (!has_word(w, io))
                return false;
        for (size_t i = 0; i < w->n; i++)
                if (w->w[i][0] && strspn(w->w[i], "0123456789") == strlen(w->w[i]))
                        return true;
        return false;
}

/*
 * 255, 4095, 65535, 2^31 - 1, and 65535 * 32: the most an instruction's
 * field (repeat times, a copy's block count, length or stride) or an
 * integer type holds.  No tile or count is chosen so.
 */
static bool is_integer_limit(int64_t value)
{
        uint64_t v = (uint64_t)value;

        if (value <= 0)
                return false;
        if (v % 32 == 0 && ((v / 32 + 1) & (v / 32)) == 0 && v / 32 >= 255)
                return true;
        return v >= 255 && ((v + 1) & v) == 0;
}

/* MAX_UINT16, INT32_MAX, maxInt64: a name spelling an integer type. */
static bool is_integer_type_name(const struct words *w)
{
        static const char *const ints[] = { "int8",   "uint8", "int16",  "uint16", "int32",
                                            "uint32", "int64", "uint64", NULL };

        return has_word(w, ints);
}

/* ------------------------------------------------------------ the literal's place */

/* Whether token i lies in the braces of an enum ("enum [class] [Name] [: T] { ... }"). */
static bool in_enum_body(const struct token_list *l, size_t i)
{
        int depth = 0;
        size_t j = i;

        for (j = token_prev(l, j); j != (size_t)-1; j = token_prev(l, j)) {
                if (token_is(l, j, "}") || token_is(l, j, ")")) {
                        depth++;
                } else if (token_is(l, j, "(")) {
                        if (depth-- == 0)
                                return false;
                } else if (token_is(l, j, "{")) {
                        if (depth-- == 0)
                                break;
                } else if (depth == 0 && token_is(l, j, ";")) {
                        return false;
                }
        }
        if (j == (size_t)-1)
                return false;
        /* back over the name, "class", ": type" to "enum" */
        for (int k = 0; k < 8; k++) {
                j = token_prev(l, j);
                if (j == (size_t)-1 ||
                    !(is_ident(l, j) || token_is(l, j, ":") || token_is(l, j, "::")))
                        return false;
                if (token_is(l, j, "enum"))
                        return true;
        }
        return false;
}

/* Whether the literal at i is an argument of a call that sets a tiling key: SetTilingKey(3). */
static bool in_set_tiling_key(const struct token_list *l, size_t i)
{
        int depth = 0;

        for (size_t j = token_prev(l, i); j != (size_t)-1; j = token_prev(l, j)) {
                char name[64];
                if (token_is(l, j, ")")) {
                        depth++;
                } else if (token_is(l, j, "(")) {
                        if (depth-- > 0)
                                continue;
                        j = token_prev(l, j);
                        if (j == (size_t)-1 || !is_ident(l, j) || l->tokens[j].len >= sizeof(name))
                                return false;
                        snprintf(name, sizeof(name), "%.*s", (int)l->tokens[j].len, tok_text(l, j));
                        return strstr(name, "TilingKey") || strstr(name, "tilingKey") ||
                               strstr(name, "tiling_key");
                } else if (token_is(l, j, ";") || token_is(l, j, "{") || token_is(l, j, "}")) {
                        return false;
                }
        }
        return false;
}

/* ------------------------------------------------------------ the decision */

static bool is_key_name(const struct words *w)
{
        for (size_t i = 0; i < w->n; i++) {
                size_t len = strlen(w->w[i]);
                if (len >= 3 && strcmp(w->w[i] + len - 3, "key") == 0 &&
                    (len == 3 || strcmp(w->w[i], "tilingkey") == 0 ||
                     strcmp(w->w[i], "dtypekey") == 0 || strcmp(w->w[i], "modekey") == 0))
                        return true;
        }
        return false;
}

static bool is_kernel_key_number(const struct gene_uses *u, int64_t value)
{
        for (size_t k = 0; u && k < u->n_key_numbers; k++)
                if (u->key_numbers[k] == value)
                        return true;
        return false;
}

const char *gene_fixed_meaning(const struct gene_uses *u, const struct token_list *l, size_t i,
                               const char *name, int64_t value)
{
        static const char *const tiling[] = { "tiling", NULL };
        static const char *const selector[] = { "mode", "modes",    "format",    "fmt",
                                                "flag", "flags",    "type",      "types",
                                                "kind", "template", "templates", NULL };
        /* a mode's or type's buffer or size is a size */
        static const char *const sizes[] = { "ub",   "tmp",   "size", "len", "length",
                                             "byte", "bytes", "tile", NULL };
        /* TILING_HW_FACTOR is a tiling's factor, not a part of its key */
        static const char *const amounts[] = { "factor", "size",  "len", "length",
                                               "byte",   "bytes", "num", "count",
                                               "scalar", "ratio", NULL };
        static const char *const limit_words[] = { "max",   "min",     "limit",   "upper",
                                                   "lower", "maximum", "minimum", NULL };
        size_t len = strlen(name);
        struct words w;

        split_words(name, &w);
        if (in_enum_body(l, i))
                return "enum-like selector (enum member)";
        if (in_set_tiling_key(l, i))
                return "tiling key (SetTilingKey)";
        if (u && set_has(&u->kernel_keys, name, len))
                return "tiling key (TILING_KEY_IS)";
        if (u && set_has(&u->keys, name, len))
                return "tiling key (SetTilingKey)";
        if (is_key_name(&w))
                return "tiling key (name)";
        if (has_word(&w, tiling) && is_kernel_key_number(u, value))
                return "tiling key (TILING_KEY_IS)";
        /* TILING_DATATYPE_FP16, TILING_SINGLE_ROW: the parts keys are summed from */
        if (is_constant_name(name) && w.n > 1 && strcmp(w.w[0], "tiling") == 0 &&
            !has_word(&w, amounts))
                return "tiling key (name)";
        if (u && set_has(&u->capacities, name, len))
                return "array length (a layout, not a choice)";
        if (is_integer_limit(value))
                return "hardware or integer limit (2^k - 1)";
        if (has_word(&w, limit_words) && is_integer_type_name(&w))
                return "hardware or integer limit (an integer type's)";
        if (u && has_word(&w, limit_words) && set_has(&u->bounds, name, len) &&
            !set_has(&u->computed, name, len))
                return "limit the tiling only checks against";
        if (is_byte_width(&w, value))
                return "dtype byte width";
        if (is_elements_per_block(&w, value))
                return "dtype elements per block";
        if ((u && set_has(&u->indexes, name, len)) || is_index_name(&w))
                return "enum-like selector (index)";
        if (is_dimension(name, &w))
                return "enum-like selector (dimension or axis)";
        if (u && is_constant_name(name) && set_has(&u->compared, name, len))
                return "enum-like selector (compared with == or case)";
        if (has_word(&w, selector) && !has_word(&w, sizes))
                return "enum-like selector (mode, type, format or flag)";
        if (is_named_number(&w))
                return "named number";
        /*
         * coefficentTen = 10, PARAM_LIMIT_4095 = 4095, ALIGN_256_BYTES = 256:
         * an identifier that says its value ("ub_budget factor #2" is a
         * hidden gene's description, the 2 its place)
         */
        if (value >= 2 &&
            strspn(name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                         "0123456789_") == len &&
            has_number_word(&w, value))
                return "named number (its name spells its value)";
        return NULL;
}

/* ------------------------------------------------------------ genes another finder found */

/* The token starting at byte start of list, or list->n. */
static size_t token_at(const struct token_list *l, size_t start)
{
        size_t lo = 0, hi = l->n;

        while (lo < hi) {
                size_t mid = lo + (hi - lo) / 2;
                if (l->tokens[mid].start < start)
                        lo = mid + 1;
                else
                        hi = mid;
        }
        return lo < l->n && l->tokens[lo].start == start ? lo : l->n;
}

/* What kind of choice a hidden gene is, from the name genes-hidden.c gave it. */
static const char *hidden_why(const char *name)
{
        if (strncmp(name, "set_", 4) == 0)
                return "setter argument";
        if (strstr(name, "ub_budget"))
                return "UB budget factor";
        if (strstr(name, "multiple"))
                return "rounding multiple";
        return "rows or count in an expression";
}

int genes_judge_found(const char *file, const struct token_list *list, const struct gene_uses *uses,
                      struct gene *genes, size_t *n, size_t first, struct gene_literals *literals)
{
        size_t kept = first;
        int r = 0;

        for (size_t k = first; k < *n && r == 0; k++) {
                struct gene *g = &genes[k];
                size_t tok = token_at(list, g->start);
                const char *why =
                    tok < list->n ? gene_fixed_meaning(uses, list, tok, g->name, g->value) : NULL;
                if (tok < list->n)
                        r = gene_literal_note(literals, file, &list->tokens[tok], g,
                                              why ? why : hidden_why(g->name), !why, why != NULL);
                if (!why)
                        genes[kept++] = *g;
        }
        *n = r == 0 ? kept : *n;
        return r;
}
