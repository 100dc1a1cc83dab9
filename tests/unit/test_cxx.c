/* SPDX-License-Identifier: MIT */
/*
 * Tests of the C++ tokenizer and of edit sets on the kind of source real
 * AscendC operators contain: comments with quotes in them, strings with
 * comment markers, raw strings, directives with continuations, numbers
 * with separators and suffixes, and longest-match punctuation.
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

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_numbers_and_punctuation),
                cmocka_unit_test(test_comments_and_strings),
                cmocka_unit_test(test_directives),
                cmocka_unit_test(test_lines_and_errors),
                cmocka_unit_test(test_navigation),
                cmocka_unit_test(test_edits),
        };
        return cmocka_run_group_tests_name("optimizer_tokens", tests, NULL, NULL);
}
