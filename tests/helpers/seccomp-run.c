// SPDX-License-Identifier: MIT
/*
 * seccomp-run: runs a command under a system-call allow list, the way a
 * unit's SystemCallFilter= with SystemCallErrorNumber=EPERM and
 * SystemCallArchitectures=native does, for tests where systemd is not
 * PID 1.  Usage: seccomp-run FILE COMMAND [ARG...], FILE holding the
 * allowed system-call numbers, one per line.  Every other call of the
 * native architecture fails with EPERM; a call of another architecture
 * kills the process.  The filter is inherited by everything it starts.
 */
#include <errno.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

/* x86_64 and aarch64 only: tests/security/s0005 skips on other machines */
#if defined(__aarch64__)
#define NATIVE_ARCH AUDIT_ARCH_AARCH64
#else
#define NATIVE_ARCH AUDIT_ARCH_X86_64
#endif

#define MAX_CALLS       1024
#define X32_SYSCALL_BIT 0x40000000u

int main(int argc, char **argv)
{
        static struct sock_filter prog[2 * MAX_CALLS + 8];
        unsigned int calls[MAX_CALLS];
        size_t n_calls = 0, n = 0;
        struct sock_fprog fprog;
        unsigned int nr;
        FILE *f;

        if (argc < 3) {
                fprintf(stderr, "usage: seccomp-run ALLOWED-NUMBERS-FILE COMMAND [ARG...]\n");
                return 64;
        }
        f = fopen(argv[1], "r");
        if (!f) {
                perror(argv[1]);
                return 66;
        }
        while (fscanf(f, "%u", &nr) == 1)
                if (n_calls < MAX_CALLS)
                        calls[n_calls++] = nr;
        fclose(f);

        /* another architecture (or the x32 ABI) is killed, as "native" does */
        prog[n++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
                                                 offsetof(struct seccomp_data, arch));
        prog[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, NATIVE_ARCH, 1, 0);
        prog[n++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS);
        prog[n++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
                                                 offsetof(struct seccomp_data, nr));
        prog[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, X32_SYSCALL_BIT, 0, 1);
        prog[n++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS);
        /* each allowed number returns ALLOW; the rest fall through to EPERM */
        for (size_t i = 0; i < n_calls; i++) {
                prog[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, calls[i], 0, 1);
                prog[n++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
        }
        prog[n++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM);
        fprog.len = (unsigned short)n;
        fprog.filter = prog;
        if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0 ||
            syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &fprog) < 0) {
                perror("seccomp-run: installing the filter");
                return 71;
        }
        execvp(argv[2], argv + 2);
        fprintf(stderr, "seccomp-run: %s: %s\n", argv[2], strerror(errno));
        return 127;
}
