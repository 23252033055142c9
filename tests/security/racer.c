/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Attack helper for tests/security/init.sh: from the moment it starts, for
 * 20 ms, try to open pid 1's memory read-write. In the first round's fast
 * path the sandbox's init exec'd its image after the program had started,
 * and until that image's first instruction it was dumpable: a program of the
 * same uid that won this race held an fd on init's memory, overwrote its
 * text and ran as a pid 1 without seccomp. Static, so that it starts at once.
 * Prints WON (and exits 0) or lost (exits 1).
 */
#include <fcntl.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

int main(void)
{
        static const char *const targets[] = { "/proc/1/mem", "/proc/1/environ" };
        struct timespec a, b;
        clock_gettime(CLOCK_MONOTONIC, &a);
        for (;;) {
                for (size_t i = 0; i < sizeof targets / sizeof *targets; i++) {
                        int fd = open(targets[i], i == 0 ? O_RDWR : O_RDONLY);
                        if (fd >= 0) {
                                printf("WON %s\n", targets[i]);
                                return 0;
                        }
                }
                clock_gettime(CLOCK_MONOTONIC, &b);
                if ((b.tv_sec - a.tv_sec) * 1000000000L + (b.tv_nsec - a.tv_nsec) > 20000000L)
                        break;
        }
        printf("lost\n");
        return 1;
}
