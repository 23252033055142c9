/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The reply queue of the MCP server (see mcp-out.h). A client that stops
 * reading must not stop the server's loop: with a blocking write, a full
 * stdout once kept the server from seeing SIGTERM, reaping its workers and
 * cancelling calls.
 */
#include <limits.h>
#include <poll.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>

#include "mcp-out.h"

void acs_mcp_out_init(acs_mcp_out *q, int fd)
{
        struct stat st;

        *q = (acs_mcp_out){ 0 };
        if (fstat(fd, &st) < 0)
                st.st_mode = S_IFIFO;
        q->sock = S_ISSOCK(st.st_mode);
        q->chunked = !S_ISREG(st.st_mode) && !S_ISBLK(st.st_mode);
}

void acs_mcp_out_done(acs_mcp_out *q)
{
        free(q->buf);
        *q = (acs_mcp_out){ 0 };
}

size_t acs_mcp_out_pending(const acs_mcp_out *q)
{
        return q->len - q->off;
}

int acs_mcp_out_push(acs_mcp_out *q, const char *line, size_t len)
{
        if (q->off > 0 && q->len + len + 1 > q->cap) { /* reclaim what was written */
                memmove(q->buf, q->buf + q->off, acs_mcp_out_pending(q));
                q->len -= q->off;
                q->off = 0;
        }
        if (q->len + len + 1 > q->cap) {
                size_t cap = q->cap ? q->cap : 64u << 10;
                char *b;

                while (cap < q->len + len + 1)
                        cap *= 2;
                b = realloc(q->buf, cap);
                if (!b)
                        return -ENOMEM;
                q->buf = b;
                q->cap = cap;
        }
        memcpy(q->buf + q->len, line, len);
        q->buf[q->len + len] = '\n';
        q->len += len + 1;
        return 0;
}

/* One write that cannot block: >0 written, 0 not now, -errno. */
static ssize_t write_some(acs_mcp_out *q, int fd)
{
        size_t n = acs_mcp_out_pending(q);
        struct pollfd p = { .fd = fd, .events = POLLOUT };
        ssize_t k;

        if (q->sock)
                k = send(fd, q->buf + q->off, n, MSG_DONTWAIT | MSG_NOSIGNAL);
        else if (poll(&p, 1, 0) <= 0 || !(p.revents & (POLLOUT | POLLERR | POLLHUP)))
                return 0;
        else
                k = write(fd, q->buf + q->off, q->chunked && n > PIPE_BUF ? PIPE_BUF : n);
        if (k < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
                return 0;
        if (k < 0)
                return -errno;
        return k > 0 ? k : -EPIPE;
}

int acs_mcp_out_flush(acs_mcp_out *q, int fd)
{
        while (acs_mcp_out_pending(q) > 0) {
                ssize_t k = write_some(q, fd);

                if (k == -EINTR)
                        continue;
                if (k < 0)
                        return (int)k;
                if (k == 0)
                        break;
                q->off += (size_t)k;
        }
        if (q->off == q->len)
                q->off = q->len = 0;
        return 0;
}
