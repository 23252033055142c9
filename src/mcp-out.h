/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The MCP server's reply queue: lines waiting for the client to read them,
 * written only as far as the fd takes them without blocking. The fd's file
 * flags are left alone (the open file description is shared with the
 * client): a socket is written with MSG_DONTWAIT, anything else only after
 * poll() says POLLOUT, PIPE_BUF bytes at a time, which a pipe with room for
 * one more buffer always takes whole.
 */
#pragma once

#include "common.h"

typedef struct acs_mcp_out {
        char *buf; /* pending bytes: buf[off..len) */
        size_t off, len, cap;
        bool sock;    /* send(MSG_DONTWAIT) */
        bool chunked; /* not a regular file: PIPE_BUF per write after POLLOUT */
} acs_mcp_out;

/* Look at fd once (socket, pipe, file). */
void acs_mcp_out_init(acs_mcp_out *q, int fd);
void acs_mcp_out_done(acs_mcp_out *q);
size_t acs_mcp_out_pending(const acs_mcp_out *q);
/* Queue line[0..len) and a '\n'. -ENOMEM. */
int acs_mcp_out_push(acs_mcp_out *q, const char *line, size_t len);
/* Write what fd takes now. 0 (some may remain pending), or -errno when the reader is gone (-EPIPE). */
int acs_mcp_out_flush(acs_mcp_out *q, int fd);
