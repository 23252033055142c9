/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The pool of ready sandboxes behind `acs-launch mcp` and `serve` (issue 14):
 * worker processes forked ahead of any call, each holding one sandbox of
 * the server's profile, fully confined, with its interpreter started and
 * waiting for code (acs_run_warm_start). A call takes one: the server
 * writes the call into the worker's call pipe, and from then on the worker
 * is an ordinary call worker (result pipe, cancel pipe, process group). A
 * worker serves one call and exits; the server forks a new one.
 */
#pragma once

#include <signal.h>
#include <sys/types.h>

#include "cli.h"
#include "mcp-tools.h"

/* What acs-launch mcp and serve keep ready unless --pool says otherwise. */
#define ACS_POOL_DEFAULT 2
#define ACS_POOL_MAX 64

typedef struct acs_pool acs_pool;

/*
 * size sandboxes ready for the server's profile and each of
 * o->pool_profiles (which clients must be allowed to use), except those
 * that do not scan. *ret NULL when size is 0. < 0: a bad --pool-profile.
 */
int acs_pool_new(const acs_options *o, const acs_mcp_policy *pol, unsigned size, const sigset_t *mask,
                 pid_t server, acs_pool **ret, acs_error *err);
/* Fork workers up to the pool's size; how many are missing afterwards. */
unsigned acs_pool_fill(acs_pool *pl);
unsigned acs_pool_missing(const acs_pool *pl);
/* Reap workers that ended while waiting (their sandbox died): fill replaces them. */
void acs_pool_reap(acs_pool *pl);
/*
 * Hand call c to a pooled worker if one fits it (execute_python with a
 * pooled profile, no limit override). 0: *pid, *out_fd (result, read end,
 * non-blocking) and *cancel_fd (write end) are the call's; -ENOENT: none fits
 * or none is left; other -errno: the worker could not take it (it is gone).
 */
int acs_pool_take(acs_pool *pl, const acs_mcp_call *c, pid_t *pid, int *out_fd, int *cancel_fd);
/*
 * The same for a CLI's run (serve-cli.h): cli (JSON) rides along in the
 * call's frame and fds (its stdout and stderr) go to the worker first.
 * acs_pool_ready_for: would a take of that call find a worker now?
 */
int acs_pool_take_cli(acs_pool *pl, const acs_mcp_call *c, const char *cli, const int *fds, pid_t *pid,
                      int *out_fd, int *cancel_fd);
bool acs_pool_ready_for(acs_pool *pl, const acs_mcp_call *c, const char *cli);
/* Every worker told to go (EOF on its call pipe), then waited for; SIGKILL after a grace. */
void acs_pool_free(acs_pool *pl);

/*
 * A session's worker (sessions, issue 14): forked with a sandbox of
 * profile name (NULL: the server's) whose interpreter takes call after
 * call; each call's frame written to *ret_call_fd (persistent) gets one result
 * line on *ret_out_fd (non-blocking). EOF on the call pipe ends it and its
 * sandbox. Returns its pid (its own process group) or -errno.
 */
pid_t acs_pool_session_start(const acs_options *o, const acs_mcp_policy *pol, const char *name, const sigset_t *mask,
                             pid_t server, int *ret_call_fd, int *ret_out_fd);

/*
 * The call on the wire, server -> worker: one JSON header line without the
 * code ({"tool":1,"code_len":N,...}, with cli: serve-cli.h's "cli" member
 * too), '\n', then the code's N bytes as they are. The code is neither
 * escaped nor parsed on its way: a 2 MiB write_file is one copy.
 * Exported for tests of the wire format.
 */
#define ACS_POOL_HEADER_MAX ((size_t)1 << 20)
#define ACS_POOL_CODE_MAX ((size_t)64 << 20)
int acs_pool_call_to_frame(const acs_mcp_call *c, const char *cli, char **ret, size_t *ret_len);
/*
 * 1: buf starts with a whole frame, *ret the call, *ret_used the frame's
 * length; 0: not whole yet (*ret_used: the frame's length once the header
 * is whole, else 0); < 0: not a frame.
 */
int acs_pool_call_from_frame(const char *buf, size_t len, acs_mcp_call *ret, size_t *ret_used);
