/* SPDX-License-Identifier: MIT */
/*
 * Tests of cxx/ on the kind of source real AscendC operators contain: the
 * tokenizer (comments with quotes in them, strings with comment markers,
 * raw strings, directives with continuations, numbers with separators and
 * suffixes, longest-match punctuation), edit sets, and the statement view
 * (tokens that skip comments, function bodies, the walk over statements,
 * calls and their arguments), and expression trees.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "cxx/cxx.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Renders tokens as "kind:text" separated by spaces. */
static char *render(const char *src)
{
        static const char kinds[] = { 'I', 'N', 'S', 'C', 'P', '/', '#' };
        struct token_list list;
        unsigned line = 0;
        char *out = malloc(8192);
        size_t pos = 0;

        assert_int_equal(tokenize(src, strlen(src), &list, &line), 0);
        out[0] = '\0';
        for (size_t i = 0; i < list.n; i++) {
                const struct token *t = &list.tokens[i];
                pos += (size_t)snprintf(out + pos, 8192 - pos, "%s%c%s:%.*s", i ? " " : "",
                                        kinds[t->kind], t->in_directive ? "d" : "", (int)t->len,
                                        src + t->start);
        }
        token_list_release(&list);
        return out;
}

static void expect(const char *src, const char *want)
{
        char *got = render(src);

        if (strcmp(got, want) != 0)
                fail_msg("source:\n%s\ngot:  %s\nwant: %s", src, got, want);
        free(got);
}

static void test_numbers_and_punctuation(void **state)
{
        expect("x>>=0x1F;", "I:x P:>>= N:0x1F P:;");
        expect("a = 1'000'000 + 1.5e-3f - 64UL;",
               "I:a P:= N:1'000'000 P:+ N:1.5e-3f P:- N:64UL P:;");
        expect("0x1e+5", "N:0x1e P:+ N:5");
        expect("p->q::r", "I:p P:-> I:q P::: I:r");
        expect("TQue<QuePosition::VECIN, 2> q;",
               "I:TQue P:< I:QuePosition P::: I:VECIN P:, N:2 P:> I:q P:;");
}

static void test_comments_and_strings(void **state)
{
        expect("a; // it's \"fine\"\nb;", "I:a P:; /:// it's \"fine\" I:b P:;");
        expect("s = \"// not a comment\"; /* 'x' */ c = '\\'';",
               "I:s P:= S:\"// not a comment\" P:; /:/* 'x' */ I:c P:= C:'\\'' P:;");
        expect("r = R\"x(a \")\" b)x\";", "I:r P:= S:R\"x(a \")\" b)x\" P:;");
        expect("u8\"s\" L'c'", "S:u8\"s\" C:L'c'");
}

static void test_directives(void **state)
{
        expect("#define TILE \\\n  2048\nint x = TILE;",
               "#d:# Id:define Id:TILE Nd:2048 I:int I:x P:= I:TILE P:;");
        expect("  # include \"kernel_operator.h\"\nx",
               "#d:# Id:include Sd:\"kernel_operator.h\" I:x");
        /* '#' inside a line is not a directive */
        expect("a # b", "I:a P:# I:b");
}

static void test_lines_and_errors(void **state)
{
        const char *src = "a\n/* two\nlines */\nb\n\"unterminated\n";
        struct token_list list;
        unsigned line = 0;

        assert_int_equal(tokenize(src, strlen(src), &list, &line), -EINVAL);
        assert_int_equal(line, 5);
        src = "a\n/* two\nlines */\nb";
        assert_int_equal(tokenize(src, strlen(src), &list, &line), 0);
        assert_int_equal(list.tokens[2].line, 4);
        token_list_release(&list);
        src = "x /* never closed";
        assert_int_equal(tokenize(src, strlen(src), &list, &line), -EINVAL);
        assert_int_equal(line, 1);
}

static void test_navigation(void **state)
{
        const char *src = "f(a[1], /* c */ {2, (3)}) + g";
        struct token_list list;

        assert_int_equal(tokenize(src, strlen(src), &list, NULL), 0);
        assert_true(token_is(&list, 0, "f"));
        assert_int_equal(token_match(&list, 1), list.n - 3);
        assert_true(token_is(&list, token_next(&list, 6), "{"));
        assert_true(token_is(&list, token_prev(&list, 7), ","));
        assert_int_equal(token_match(&list, 0), list.n);
        token_list_release(&list);
}

static void test_edits(void **state)
{
        const char *src = "int tile = 2048; int n = 8;";
        struct text_edits edits = { 0 };
        char *out = NULL;

        assert_int_equal(text_edits_add(&edits, 25, 1, "16"), 0);
        assert_int_equal(text_edits_add(&edits, 11, 4, "4096"), 0);
        assert_int_equal(text_edits_apply(&edits, src, strlen(src), &out), 0);
        assert_string_equal(out, "int tile = 4096; int n = 16;");
        free(out);
        assert_int_equal(text_edits_add(&edits, 12, 2, "x"), 0);
        assert_int_equal(text_edits_apply(&edits, src, strlen(src), &out), -EINVAL);
        text_edits_release(&edits);
}

/* ------------------------------------------------------------ the statement view */

static void parse(struct cxx_file *f, const char *src)
{
        assert_int_equal(cxx_file_parse(f, "op_kernel/k.cpp", src, strlen(src), NULL), 0);
}

/* The index of the nth token (from 0) spelled s. */
static size_t find(const struct cxx_file *f, const char *s, int nth)
{
        for (size_t i = 0; i < f->tokens.n; i++)
                if (cxx_tok_len(f, i) == strlen(s) &&
                    memcmp(cxx_tok_text(f, i), s, strlen(s)) == 0 && nth-- == 0)
                        return i;
        fail_msg("no token %s", s);
        return CXX_NONE;
}

static void test_file_tokens(void **state)
{
        const char *src = "x = 1u /* one */ + y; // end\nz = x + 1 ;";
        struct cxx_file f;
        char buf[4];
        size_t one;

        parse(&f, src);
        one = find(&f, "1u", 0);
        assert_true(cxx_tok_is_number(&f, one, "1"));
        assert_false(cxx_tok_is_number(&f, one, "10"));
        assert_true(cxx_tok_eq(&f, cxx_tok_next(&f, one), "+"));
        assert_int_equal(cxx_tok_prev(&f, cxx_tok_next(&f, one)), one);
        assert_int_equal(cxx_tok_next(&f, CXX_NONE), f.tokens.n);
        assert_int_equal(cxx_tok_prev(&f, 0), CXX_NONE);
        assert_false(cxx_tok_eq(&f, f.tokens.n, "z"));
        assert_true(cxx_tok_is_kind(&f, find(&f, "/* one */", 0), TOKEN_COMMENT));
        assert_false(cxx_tok_is_ident(&f, CXX_NONE));
        assert_string_equal(cxx_tok_copy(&f, find(&f, "z", 0), buf, sizeof(buf)), "z");
        assert_string_equal(cxx_tok_copy(&f, find(&f, "/* one */", 0), buf, sizeof(buf)), "/* ");
        /* "x = 1u + y" against "x + 1": not the same, comments aside */
        assert_false(cxx_range_same(&f, 0, find(&f, "y", 0), find(&f, "x", 1), find(&f, "1", 0)));
        assert_true(cxx_range_same(&f, find(&f, "+", 0), find(&f, "+", 0), find(&f, "+", 1),
                                   find(&f, "+", 1)));
        assert_true(cxx_range_mentions(&f, 0, f.tokens.n - 1, "y", 1));
        assert_false(cxx_range_mentions(&f, 0, f.tokens.n - 1, "one", 3));
        {
                char *dup = cxx_range_dup(&f, one, find(&f, "y", 0));
                assert_string_equal(dup, "1u /* one */ + y");
                free(dup);
        }
        cxx_fresh_name(&f, "x", buf, sizeof(buf));
        assert_string_equal(buf, "x2");
        assert_int_equal(cxx_stmt_first(&f, find(&f, "+", 1)), find(&f, "z", 0));
        assert_int_equal(cxx_stmt_last(&f, find(&f, "z", 0)), f.tokens.n - 1);
        cxx_file_release(&f);
}

struct seen {
        char text[1024];
        size_t n;
};

static int record(const struct cxx_file *f, const struct cxx_func *funcs,
                  const struct cxx_stmt *stmt, void *userdata)
{
        struct seen *seen = userdata;
        size_t len = strlen(seen->text);

        /* "L:" in a loop, "B:" in a branch, then the statement's first token */
        snprintf(seen->text + len, sizeof(seen->text) - len, "%s%s%s%.*s", seen->n++ ? " | " : "",
                 stmt->loop != CXX_NONE ? "L:" : "", stmt->in_branch ? "B:" : "",
                 (int)cxx_tok_len(f, stmt->first), cxx_tok_text(f, stmt->first));
        return 0;
}

static void test_functions_and_statements(void **state)
{
        const char *src = "#define N 8\n"
                          "struct K {\n"
                          "    K(int a) { Init(); }\n"
                          "    int Get() const { return a_; }\n"
                          "    int a_;\n"
                          "};\n"
                          "extern \"C\" __global__ __aicore__ void add(GM_ADDR x) {\n"
                          "    K k(1);\n"
                          "    for (int i = 0; i < N; i++) {\n"
                          "        if (i) Copy(i); else { Skip(); }\n"
                          "    }\n"
                          "    while (k.Get()) Step();\n"
                          "}\n";
        struct cxx_file f;
        struct cxx_func *funcs = NULL;
        struct seen seen = { "", 0 };
        size_t n = 0;

        parse(&f, src);
        assert_int_equal(cxx_funcs_find(&f, &funcs, &n), 0);
        assert_int_equal(n, 3);
        assert_true(cxx_tok_eq(&f, funcs[0].name, "K"));
        assert_true(cxx_tok_eq(&f, funcs[1].name, "Get"));
        assert_true(cxx_tok_eq(&f, funcs[2].name, "add"));
        assert_false(funcs[1].entry);
        assert_true(funcs[2].entry);
        assert_true(cxx_in_function(funcs, n, find(&f, "Copy", 0)));
        assert_false(cxx_in_function(funcs, n, find(&f, "a_", 1)));
        free(funcs);
        assert_int_equal(cxx_walk_statements(&f, record, &seen), 0);
        assert_string_equal(seen.text, "Init | return | K | for | L:{ | L:if | L:B:Copy | L:B:{ | "
                                       "L:B:Skip | while | L:Step");
        /* the statement before and after the for loop, in add's body */
        {
                size_t body = find(&f, "{", 3), loop = find(&f, "for", 0);
                assert_int_equal(cxx_stmt_before(&f, loop, body), find(&f, "K", 2));
                assert_int_equal(cxx_stmt_after(&f, cxx_stmt_last(&f, loop), body),
                                 find(&f, "while", 0));
                assert_int_equal(cxx_stmt_after(&f, cxx_stmt_last(&f, find(&f, "while", 0)), body),
                                 CXX_NONE);
        }
        cxx_file_release(&f);
}

static void test_calls(void **state)
{
        const char *src = "q.AllocTensor<half>(a[i], /* n */ f(1, 2), {3, 4});\n"
                          "Add(z, x, y);\n"
                          "g(a, , b);\n"
                          "int v[] = {1, 2, 3,};\n";
        struct cxx_file f;
        struct cxx_call call;
        struct cxx_arg args[4];
        size_t semi;

        parse(&f, src);
        semi = find(&f, ";", 0);
        assert_true(cxx_stmt_call(&f, 0, semi, &call));
        assert_true(cxx_call_is(&f, &call, "AllocTensor"));
        assert_int_equal(call.obj, 0);
        assert_int_equal(call.n_args, 3);
        assert_int_equal(cxx_arg_base(&f, &call.args[0]), find(&f, "a", 0));
        assert_int_equal(cxx_arg_ident(&f, &call.args[0]), CXX_NONE);
        assert_true(cxx_tok_eq(&f, call.args[1].first, "f"));
        assert_true(cxx_tok_eq(&f, call.args[2].last, "}"));
        assert_true(cxx_stmt_call(&f, find(&f, "Add", 0), find(&f, ";", 1), &call));
        assert_int_equal(call.obj, CXX_NONE);
        assert_int_equal(cxx_arg_ident(&f, &call.args[2]), find(&f, "y", 0));
        /* not one call: a declaration */
        assert_false(cxx_stmt_call(&f, find(&f, "int", 0), find(&f, ";", 3), &call));
        /* an empty argument; a brace list's trailing comma adds none; max caps what is stored */
        assert_int_equal(cxx_args_split(&f, find(&f, "(", 3), args, 4), 3);
        assert_int_equal(args[1].first, CXX_NONE);
        assert_int_equal(cxx_args_split(&f, find(&f, "{", 1), args, 4), 3);
        assert_int_equal(cxx_args_split(&f, find(&f, "{", 1), args, 2), 2);
        assert_true(cxx_tok_is_number(&f, args[1].first, "2"));
        cxx_file_release(&f);
        /* a bracket that does not close holds nothing */
        parse(&f, "f(a, b");
        assert_int_equal(cxx_args_split(&f, 1, args, 4), 0);
        cxx_file_release(&f);
        parse(&f, "T<A<int>, B> x; y = a[b(c)];");
        assert_int_equal(cxx_angle_match(&f, 1), find(&f, ">", 1));
        assert_int_equal(cxx_bracket_open(&f, find(&f, "]", 0)), find(&f, "[", 0));
        cxx_file_release(&f);
}

static void test_layout(void **state)
{
        const char *src = "void f() {\n\tint a = 1; // one\n\tint b = 2;\n}\n";
        struct cxx_file f;
        size_t a;
        char *indent;

        parse(&f, src);
        a = find(&f, "int", 0);
        assert_int_equal(cxx_line_start(&f, f.tokens.tokens[a].start), 11);
        indent = cxx_indent_at(&f, f.tokens.tokens[a].start);
        assert_string_equal(indent, "\t");
        free(indent);
        assert_string_equal(cxx_indent_unit(&f), "\t");
        assert_true(cxx_text_blank(&f, 11, 12));
        assert_false(cxx_text_blank(&f, 11, 13));
        assert_true(
            cxx_tok_is_kind(&f, cxx_with_trailing_comment(&f, find(&f, ";", 0)), TOKEN_COMMENT));
        assert_true(cxx_tok_eq(&f, cxx_with_trailing_comment(&f, find(&f, ";", 1)), ";"));
        cxx_file_release(&f);
}

/* An expression tree as text: (a op b), (op a), (c ? a : b), f(args), cast(a), a[b]. */
static void render_expr(const struct cxx_file *f, const struct cxx_expr_tree *t, int i, char *out,
                        size_t size)
{
        const struct cxx_expr *e = cxx_expr_at(t, i);
        size_t len = strlen(out);
        char a[512] = "", b[512] = "", c[512] = "";

        assert_non_null(e);
        if (e->a >= 0)
                render_expr(f, t, e->a, a, sizeof(a));
        if (e->kind != CXX_EXPR_CALL && e->b >= 0)
                render_expr(f, t, e->b, b, sizeof(b));
        if (e->c >= 0)
                render_expr(f, t, e->c, c, sizeof(c));
        switch (e->kind) {
        case CXX_EXPR_NUMBER:
        case CXX_EXPR_NAME:
        case CXX_EXPR_OTHER:
                /* a member: its object first */
                snprintf(out + len, size - len, "%s%s%.*s", a, a[0] ? "." : "",
                         (int)cxx_tok_len(f, e->tok), cxx_tok_text(f, e->tok));
                break;
        case CXX_EXPR_CALL:
                snprintf(out + len, size - len, "%.*s(", (int)cxx_tok_len(f, e->tok),
                         cxx_tok_text(f, e->tok));
                for (int arg = e->b; arg >= 0; arg = cxx_expr_at(t, arg)->next) {
                        if (arg != e->b)
                                strncat(out, ", ", size - strlen(out) - 1);
                        render_expr(f, t, arg, out, size);
                }
                strncat(out, ")", size - strlen(out) - 1);
                break;
        case CXX_EXPR_CAST:
                snprintf(out + len, size - len, "cast(%s)", a);
                break;
        case CXX_EXPR_INDEX:
                snprintf(out + len, size - len, "%s[%s]", a, b);
                break;
        case CXX_EXPR_UNARY:
                snprintf(out + len, size - len, "(%.*s %s)", (int)cxx_tok_len(f, e->tok),
                         cxx_tok_text(f, e->tok), a);
                break;
        case CXX_EXPR_BINARY:
                snprintf(out + len, size - len, "(%s %.*s %s)", a, (int)cxx_tok_len(f, e->tok),
                         cxx_tok_text(f, e->tok), b);
                break;
        case CXX_EXPR_TERNARY:
                snprintf(out + len, size - len, "(%s ? %s : %s)", a, b, c);
                break;
        }
}

/* Parses the whole of src as one expression; "" when it is none. */
static void expr_text(const char *src, char *out, size_t size)
{
        struct cxx_expr_tree t;
        struct cxx_file f;

        parse(&f, src);
        out[0] = '\0';
        if (cxx_expr_parse(&f, 0, f.tokens.n - 1, &t) == 0) {
                render_expr(&f, &t, t.root, out, size);
                cxx_expr_tree_release(&t);
        }
        cxx_file_release(&f);
}

static void test_expressions(void **state)
{
        static const struct {
                const char *src, *tree;
        } cases[] = {
                /* precedence and left association, parentheses leave no node */
                { "ub / BLOCK / 2 / NUM", "(((ub / BLOCK) / 2) / NUM)" },
                { "a + b * c - d", "((a + (b * c)) - d)" },
                { "(x + 255) / 256 * 256", "(((x + 255) / 256) * 256)" },
                { "n <= 8 ? n : n / 8 * 8", "((n <= 8) ? n : ((n / 8) * 8))" },
                { "a || b && c == d", "(a || (b && (c == d)))" },
                /* casts, sizeof, calls with templates and objects, members, indexing */
                { "(uint32_t)(ubSize / (2 * sizeof(float)))",
                  "cast((ubSize / (2 * sizeof(float))))" },
                { "static_cast<int64_t>(x) - 1", "(cast(x) - 1)" },
                { "std::min<uint32_t>(a, b + 1)", "min(a, (b + 1))" },
                { "params.ubSize / 3", "(params.ubSize / 3)" },
                { "ctx->GetInputShape(0)->GetStorageShape().GetShapeSize() / 8",
                  "(GetShapeSize() / 8)" },
                { "x[i + 1] * -y", "(x[(i + 1)] * (- y))" },
                { "(a) * b /* a comment */", "(a * b)" },
                { "\"s\" + 'c'", "(\"s\" + 'c')" },
        };
        static const char *const not_expressions[] = { "a = 1",  "[&](int x) { return x; }",
                                                       "{1, 2}", "a +",
                                                       "f(a, b", "(a) b" };
        char out[1024];

        for (size_t i = 0; i < sizeof(cases) / sizeof(*cases); i++) {
                expr_text(cases[i].src, out, sizeof(out));
                if (strcmp(out, cases[i].tree) != 0)
                        fail_msg("%s: %s, expected %s", cases[i].src, out, cases[i].tree);
        }
        for (size_t i = 0; i < sizeof(not_expressions) / sizeof(*not_expressions); i++) {
                expr_text(not_expressions[i], out, sizeof(out));
                if (out[0])
                        fail_msg("%s parsed as %s", not_expressions[i], out);
        }
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_numbers_and_punctuation),
                cmocka_unit_test(test_comments_and_strings),
                cmocka_unit_test(test_directives),
                cmocka_unit_test(test_lines_and_errors),
                cmocka_unit_test(test_navigation),
                cmocka_unit_test(test_edits),
                cmocka_unit_test(test_file_tokens),
                cmocka_unit_test(test_functions_and_statements),
                cmocka_unit_test(test_calls),
                cmocka_unit_test(test_layout),
                cmocka_unit_test(test_expressions),
        };
        return cmocka_run_group_tests_name("cxx", tests, NULL, NULL);
}
