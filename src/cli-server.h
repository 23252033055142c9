/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * `acs-launch --server PATH` (issue 14): a run handed to a running
 * `acs-launch serve --socket PATH`, whose ready sandbox runs it and prints
 * on the CLI's own stdout and stderr exactly what a cold run prints there.
 *
 * The wire (the serve socket, before any MCP): the CLI sends one JSON-RPC
 * request line that starts with ACS_CLI_RUN_PREFIX, with its fds 1 and 2
 * attached (SCM_RIGHTS); its params are the run as the CLI would make it
 * (the code, the profile's name and file, the workspace, the values of the
 * profile's [env] keep, the timeout, --json, --quiet, the version). The
 * server answers one line: a result {"ready": true} when one of its ready
 * sandboxes can run exactly that run within its policy, else {"cold":
 * WHY}. Only after the CLI's "go" line does anything run; then the last
 * line is {"exit_status": N} (or {"cold": WHY} when nothing ran after
 * all). So a CLI that gave up waiting never sees its code run twice.
 * A request with a "session" goes on to the server's keeper of CLI
 * sessions (cli-session.h), which answers the same way.
 */
#pragma once

#include "cli.h"

#define ACS_CLI_RUN_METHOD "acs/cli-run"
#define ACS_CLI_RUN_PREFIX "{\"jsonrpc\":\"2.0\",\"method\":\"" ACS_CLI_RUN_METHOD "\""
/* The longest request line a server reads (the code and what comes with it). */
#define ACS_CLI_RUN_MAX (1u << 20)
/* The launcher's own variables that change how a run is made: the CLI's and the server's must agree. */
#define ACS_CLI_ENGINE_ENV                                                                                   \
        {                                                                                                    \
                "ACS_SCAN_MODULE_DIR", "ACS_NO_FAST_CLONE"                                                   \
        }
/* How long the CLI waits for a server's first answer before it runs cold. */
#define ACS_CLI_SERVER_WAIT_MS 2000

struct acs_profile;

/*
 * The run of o (prof loaded) through o's server, if any: 1, *status is the
 * exit status (the server printed everything); 0, run it cold (-v says why);
 * < 0, err says why and nothing ran (--session without a server).
 */
int acs_cli_server_run(const acs_options *o, const struct acs_profile *prof, int report_fd, int *status,
                       acs_error *err);
/*
 * Why o cannot go to a server (a run the pooled path does not make exactly
 * so), or NULL. Pure but for what stdin is (stdin_is_null_or_tty).
 */
const char *acs_cli_server_unfit(const acs_options *o, bool stdin_is_null_or_tty);
