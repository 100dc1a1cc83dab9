/* SPDX-License-Identifier: MIT */
/*
 * ascendopt-exec: sets resource limits and niceness, then execs the real
 * program.  posix_spawn cannot set rlimits, so the child-process runner
 * spawns this tiny helper instead of the program itself.
 *
 *   ascendopt-exec [--as BYTES] [--cpu SECONDS] [--fsize BYTES]
 *                  [--nproc N] [--nice N] -- PROGRAM [ARG...]
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

static int parse_u64(const char *s, unsigned long long *ret)
{
        char *end;
        unsigned long long v;

        errno = 0;
        v = strtoull(s, &end, 10);
        if (errno || end == s || *end || s[0] == '-')
                return -EINVAL;
        *ret = v;
        return 0;
}

static int set_limit(int resource, unsigned long long soft, unsigned long long hard)
{
        struct rlimit rl = { .rlim_cur = soft, .rlim_max = hard };
        struct rlimit old;

        /* Never raise a hard limit we were given; lowering is always allowed. */
        if (getrlimit(resource, &old) == 0 && old.rlim_max != RLIM_INFINITY) {
                if (rl.rlim_max > old.rlim_max)
                        rl.rlim_max = old.rlim_max;
                if (rl.rlim_cur > rl.rlim_max)
                        rl.rlim_cur = rl.rlim_max;
        }
        return setrlimit(resource, &rl) < 0 ? -errno : 0;
}

int main(int argc, char **argv)
{
        int i;

        for (i = 1; i < argc; i++) {
                unsigned long long v;
                int r = 0;

                if (strcmp(argv[i], "--") == 0) {
                        i++;
                        break;
                }
                if (i + 1 >= argc || parse_u64(argv[i + 1], &v) < 0) {
                        fprintf(stderr, "ascendopt-exec: bad or missing value for %s\n", argv[i]);
                        return 127;
                }
                if (strcmp(argv[i], "--as") == 0)
                        r = set_limit(RLIMIT_AS, v, v);
                else if (strcmp(argv[i], "--cpu") == 0)
                        /* The soft limit sends SIGXCPU, which names the cause; the
                         * hard limit one second later is the backstop. */
                        r = set_limit(RLIMIT_CPU, v, v + 1);
                else if (strcmp(argv[i], "--fsize") == 0)
                        r = set_limit(RLIMIT_FSIZE, v, v);
                else if (strcmp(argv[i], "--nproc") == 0)
                        r = set_limit(RLIMIT_NPROC, v, v);
                else if (strcmp(argv[i], "--nice") == 0) {
                        errno = 0;
                        if (nice((int)(v > 19 ? 19 : v)) == -1 && errno)
                                r = -errno;
                } else {
                        fprintf(stderr, "ascendopt-exec: unknown option %s\n", argv[i]);
                        return 127;
                }
                if (r < 0) {
                        fprintf(stderr, "ascendopt-exec: %s %s: %s\n", argv[i], argv[i + 1],
                                strerror(-r));
                        return 127;
                }
                i++;
        }
        if (i >= argc) {
                fprintf(stderr, "usage: ascendopt-exec [--as B] [--cpu S] [--fsize B] [--nproc N] "
                                "[--nice N] -- PROGRAM [ARG...]\n");
                return 127;
        }
        execvp(argv[i], argv + i);
        fprintf(stderr, "ascendopt-exec: cannot execute %s: %s\n", argv[i], strerror(errno));
        return 127;
}
