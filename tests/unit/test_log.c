/* SPDX-License-Identifier: MIT */
/*
 * Tests of logging: priority prefixes, context labels, level filtering and
 * that one event always stays one line.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "common/common.h"

#include <errno.h>
#include <string.h>
#include <unistd.h>

static int pipe_fds[2];

static int setup(void **state)
{
        assert_int_equal(pipe(pipe_fds), 0);
        log_set_fd(pipe_fds[1]);
        log_set_max_level(LOG_INFO);
        return 0;
}

static int teardown(void **state)
{
        log_set_fd(-1);
        close(pipe_fds[0]);
        close(pipe_fds[1]);
        return 0;
}

/* Reads everything logged so far into buf. */
static const char *logged(char *buf, size_t size)
{
        ssize_t n;

        close(pipe_fds[1]);
        n = read(pipe_fds[0], buf, size - 1);
        buf[n > 0 ? n : 0] = '\0';
        assert_int_equal(pipe(pipe_fds), 0);
        log_set_fd(pipe_fds[1]);
        return buf;
}

static void test_priority_prefix_and_context(void **state)
{
        char buf[512];

        log_error("cannot open %s", "x.json");
        log_msg(LOG_INFO, "episode 42", "round %d done", 1);
        assert_string_equal(logged(buf, sizeof(buf)),
                            "<3>cannot open x.json\n<6>[episode 42] round 1 done\n");
}

static void test_level_filter(void **state)
{
        char buf[512];

        log_debug("hidden");
        log_set_max_level(LOG_DEBUG);
        log_debug("shown");
        assert_string_equal(logged(buf, sizeof(buf)), "<7>shown\n");
}

static void test_one_event_one_line(void **state)
{
        char buf[512];

        log_warning("compiler said:\nline two\x1b[31m");
        assert_string_equal(logged(buf, sizeof(buf)), "<4>compiler said:\\nline two\\x1b[31m\n");
}

static void test_errno_is_preserved(void **state)
{
        char buf[512];

        errno = ENOSPC;
        log_info("disk full");
        assert_int_equal(errno, ENOSPC);
        logged(buf, sizeof(buf));
}

static void test_level_names(void **state)
{
        int level = -1;

        assert_int_equal(log_level_from_string("debug", &level), 0);
        assert_int_equal(level, LOG_DEBUG);
        assert_int_equal(log_level_from_string("error", &level), 0);
        assert_int_equal(level, LOG_ERR);
        assert_int_equal(log_level_from_string("4", &level), 0);
        assert_int_equal(level, LOG_WARNING);
        assert_int_equal(log_level_from_string("loud", &level), -EINVAL);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test_setup_teardown(test_priority_prefix_and_context, setup, teardown),
                cmocka_unit_test_setup_teardown(test_level_filter, setup, teardown),
                cmocka_unit_test_setup_teardown(test_one_event_one_line, setup, teardown),
                cmocka_unit_test_setup_teardown(test_errno_is_preserved, setup, teardown),
                cmocka_unit_test(test_level_names),
        };
        return cmocka_run_group_tests_name("log", tests, NULL, NULL);
}
