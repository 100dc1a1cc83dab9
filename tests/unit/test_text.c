/* SPDX-License-Identifier: MIT */
/*
 * Tests of the small text helpers every folder uses: the growable string,
 * format_error(), and format_path(), which must never leave a truncated
 * path for a caller that forgot to check it.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "common/common.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static void test_strbuf_grows_and_hands_over(void **state)
{
        struct strbuf sb = { 0 };
        char *s;

        s = strbuf_detach(&sb);
        assert_string_equal(s, ""); /* nothing written is "", not NULL */
        free(s);
        for (int i = 0; i < 1000; i++)
                strbuf_printf(&sb, "%d,", i % 10);
        strbuf_puts(&sb, "end");
        strbuf_putn(&sb, "xyz", 1);
        assert_int_equal(sb.len, 2000 + 4);
        s = strbuf_detach(&sb);
        assert_non_null(s);
        assert_memory_equal(s, "0,1,2,", 6);
        assert_string_equal(s + 2000, "endx");
        assert_null(sb.buf); /* sb is empty again */
        free(s);
        strbuf_puts(&sb, "dropped");
        strbuf_release(&sb);
        strbuf_release(&sb);
        strbuf_release(NULL);
}

static void test_format_error_reports_and_returns(void **state)
{
        char err[16];

        assert_int_equal(format_error(err, sizeof(err), -ENOENT, "%s: %d", "missing", 42), -ENOENT);
        assert_string_equal(err, "missing: 42");
        assert_int_equal(format_error(err, sizeof(err), -EINVAL, "%s", "a longer message here"),
                         -EINVAL);
        assert_string_equal(err, "a longer messag"); /* cut to the buffer, terminated */
        assert_int_equal(format_error(NULL, 0, -EIO, "nowhere"), -EIO);
}

static void test_format_path_never_leaves_a_truncated_path(void **state)
{
        char buf[16];

        assert_int_equal(format_path(buf, sizeof(buf), "%s/%s", "/tmp", "x"), 0);
        assert_string_equal(buf, "/tmp/x");
        /* "/tmp/scratch/../" would be a real, wrong directory: nothing is left instead */
        assert_int_equal(format_path(buf, sizeof(buf), "%s/%s", "/tmp/scratch", "../etc/passwd"),
                         -ENAMETOOLONG);
        assert_string_equal(buf, "");
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_strbuf_grows_and_hands_over),
                cmocka_unit_test(test_format_error_reports_and_returns),
                cmocka_unit_test(test_format_path_never_leaves_a_truncated_path),
        };

        return cmocka_run_group_tests_name("text", tests, NULL, NULL);
}
