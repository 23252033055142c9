/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The MCP server's sessions (issue 14): an execute_python call with a
 * "session" id runs in that session's sandbox (pool.h's session worker),
 * where the workspace and the interpreter's globals persist from call to
 * call. Sessions belong to one client (one stdio server, one serve
 * connection): ids of other clients are never seen.
 */
#pragma once

#include <signal.h>
#include <sys/types.h>

#include "cli.h"
#include "mcp-tools.h"

#define ACS_SESSIONS_DEFAULT_MAX 8
#define ACS_SESSION_DEFAULT_IDLE 600.0 /* seconds */

typedef struct acs_sessions acs_sessions;

acs_sessions *acs_sessions_new(const acs_options *o, const acs_mcp_policy *pol, const sigset_t *mask, pid_t server);
/* A session id is what acs_cli_session_id_valid() (cli.h) takes. */
/*
 * Hand call c to session id, starting it if new. 0: *pid (the session's
 * worker, a process group) and *out_fd (a dup of its result pipe: one line
 * answers this call) belong to the call; -EBUSY: a call of it is running;
 * -EUSERS: --max-sessions reached; other -errno: it could not start.
 */
int acs_sessions_call(acs_sessions *S, const char *id, const acs_mcp_call *c, pid_t *pid, int *out_fd);
/* Is there a session id (not closing)? */
bool acs_sessions_exists(acs_sessions *S, const char *id);
/* The call that session worker pid ran has been answered. */
void acs_sessions_call_done(acs_sessions *S, pid_t pid);
/* End session id (close_session): 0, or -ENOENT. */
int acs_sessions_close(acs_sessions *S, const char *id);
/* Reap ended sessions, end idle ones; ms until the next idle expiry (-1: none). */
int acs_sessions_tick(acs_sessions *S);
void acs_sessions_free(acs_sessions *S);

struct json_object;
/*
 * A tools/call's params (json): close_session is done here (returns 1, its
 * id in msg, for acs_sessions_closed_result); a "session" argument is taken
 * out of the arguments into *ret (returns 0), so that the tool's own
 * validation sees what it knows. < 0: a tool error, said in msg.
 */
int acs_sessions_take(acs_sessions *S, const acs_options *o, struct json_object *params, char **ret, char *msg,
                      size_t size);
struct json_object *acs_sessions_closed_result(const char *id);
/* execute_python's "session" argument and the close_session, write_file and read_file tools, into a tools/list result. */
void acs_sessions_describe(struct json_object *list);
