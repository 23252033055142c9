/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The MCP reply queue never blocks: a reader that stops reading leaves
 * bytes pending, one that goes away is an error, and everything queued
 * arrives whole and in order once the reader reads. Over a pipe, a socket
 * (what node gives a child) and a regular file; the fds stay blocking.
 */
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "../tap.h"
#include "mcp-out.h"

#define LINES 2000
#define LINE_LEN 999 /* + '\n': 2 MB in all, far more than a pipe or socket buffer */

static double now(void)
{
        struct timespec ts;

        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void fill(acs_mcp_out *q)
{
        char line[LINE_LEN];

        for (int i = 0; i < LINES; i++) {
                memset(line, 'a' + i % 26, sizeof(line));
                snprintf(line, 12, "%010d", i); /* the NUL is overwritten below */
                line[10] = ' ';
                if (acs_mcp_out_push(q, line, sizeof(line)) < 0)
                        break;
        }
}

/* Read until count bytes came (flushing between reads); check every line. */
static bool drain(acs_mcp_out *q, int wfd, int rfd, size_t count)
{
        char *got = malloc(count), expect[LINE_LEN];
        size_t have = 0;
        bool same = true;

        while (got && have < count) {
                ssize_t k;

                if (acs_mcp_out_flush(q, wfd) < 0)
                        break;
                k = read(rfd, got + have, count - have);
                if (k <= 0)
                        break;
                have += (size_t)k;
        }
        for (int i = 0; got && have == count && i < LINES; i++) {
                memset(expect, 'a' + i % 26, sizeof(expect));
                snprintf(expect, 12, "%010d", i);
                expect[10] = ' ';
                same &= memcmp(got + (size_t)i * (LINE_LEN + 1), expect, LINE_LEN) == 0 &&
                        got[(size_t)i * (LINE_LEN + 1) + LINE_LEN] == '\n';
        }
        free(got);
        return have == count && same;
}

static void check_stream(const char *kind, int rfd, int wfd)
{
        acs_mcp_out q;
        double t0;
        int r;

        acs_mcp_out_init(&q, wfd);
        ok(q.sock == (strcmp(kind, "socket") == 0), "%s: recognised", kind);
        fill(&q);
        ok(acs_mcp_out_pending(&q) == LINES * (LINE_LEN + 1), "%s: 2 MB queued", kind);
        t0 = now();
        r = acs_mcp_out_flush(&q, wfd);
        ok(r == 0 && now() - t0 < 1.0, "%s: a flush to a reader that does not read returns at once", kind);
        ok(acs_mcp_out_pending(&q) > 0 && acs_mcp_out_pending(&q) < LINES * (LINE_LEN + 1),
           "%s: part written, the rest pending (%zu)", kind, acs_mcp_out_pending(&q));
        ok(acs_mcp_out_flush(&q, wfd) == 0, "%s: flushing again while full is harmless", kind);
        ok(fcntl(wfd, F_GETFL) >= 0 && !(fcntl(wfd, F_GETFL) & O_NONBLOCK), "%s: the fd's flags are untouched", kind);
        ok(drain(&q, wfd, rfd, LINES * (LINE_LEN + 1)), "%s: everything arrives whole and in order", kind);
        ok(acs_mcp_out_pending(&q) == 0, "%s: nothing pending after", kind);

        acs_mcp_out_push(&q, "x", 1);
        close(rfd);
        r = acs_mcp_out_flush(&q, wfd);
        ok(r < 0, "%s: a reader gone is an error (%d)", kind, r);
        close(wfd);
        acs_mcp_out_done(&q);
}

int main(void)
{
        int p[2], sv[2];
        char path[] = "/tmp/acs-test-mcp-out.XXXXXX";
        acs_mcp_out q;
        int fd;

        signal(SIGPIPE, SIG_IGN); /* as in the server */
        if (pipe(p) == 0)
                check_stream("pipe", p[0], p[1]);
        if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0)
                check_stream("socket", sv[0], sv[1]);

        fd = mkstemp(path);
        acs_mcp_out_init(&q, fd);
        fill(&q);
        is_int(acs_mcp_out_flush(&q, fd), 0, "file: flushed");
        is_int(acs_mcp_out_pending(&q), 0, "file: all written at once");
        ok(lseek(fd, 0, SEEK_END) == LINES * (LINE_LEN + 1), "file: every byte");
        acs_mcp_out_done(&q);
        close(fd);
        unlink(path);
        return tap_done();
}
