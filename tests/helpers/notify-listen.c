/* SPDX-License-Identifier: MIT */
/*
 * A stand-in for systemd's notification socket in tests: binds a unix
 * datagram socket at PATH and prints every message it receives, one per
 * line (newlines inside a message become spaces), until SECONDS pass.
 *
 *   notify-listen PATH SECONDS
 */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv)
{
        struct sockaddr_un addr = { .sun_family = AF_UNIX };
        struct timespec start, now;
        double limit;
        int fd;

        if (argc != 3 || strlen(argv[1]) >= sizeof(addr.sun_path)) {
                fprintf(stderr, "usage: notify-listen PATH SECONDS\n");
                return 2;
        }
        limit = atof(argv[2]);
        snprintf(addr.sun_path, sizeof(addr.sun_path), "%s", argv[1]);
        unlink(argv[1]);
        fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
        if (fd < 0 || bind(fd, (struct sockaddr *)&addr, sizeof(addr)) < 0) {
                perror("notify-listen");
                return 1;
        }
        setvbuf(stdout, NULL, _IOLBF, 0);
        clock_gettime(CLOCK_MONOTONIC, &start);
        for (;;) {
                struct pollfd p = { .fd = fd, .events = POLLIN };
                char buf[4096];
                ssize_t n;
                double left;

                clock_gettime(CLOCK_MONOTONIC, &now);
                left = limit - ((double)(now.tv_sec - start.tv_sec) +
                                (double)(now.tv_nsec - start.tv_nsec) / 1e9);
                if (left <= 0)
                        break;
                if (poll(&p, 1, (int)(left * 1000) + 1) <= 0)
                        continue;
                n = recv(fd, buf, sizeof(buf) - 1, 0);
                if (n <= 0)
                        continue;
                buf[n] = '\0';
                for (char *c = buf; *c; c++)
                        if (*c == '\n')
                                *c = ' ';
                printf("%s\n", buf);
        }
        unlink(argv[1]);
        return 0;
}
