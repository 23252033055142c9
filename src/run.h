/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The single engine entry point that both the CLI and the MCP server call. */
#pragma once

#include "cli.h"
#include "outmark.h"
#include "profile.h"
#include "report.h"

typedef enum { ACS_RUN_FILE, ACS_RUN_CODE, ACS_RUN_EXEC } acs_run_kind;

typedef struct acs_run_request {
        acs_run_kind kind;
        const acs_profile *profile; /* already loaded */
        const acs_options *opts;    /* overrides and mounts; may be NULL */
        char *const *argv;          /* FILE ARGS | ARGS (for code) | COMMAND ARGS */
        const char *code;           /* ACS_RUN_CODE: the source */
        size_t code_len;
        int stdin_fd;               /* the caller's stdin, -1: none (/dev/null) */
        acs_stdin_mode stdin_mode;  /* how the program gets it (input.h) */
        bool stream;                /* pass output through live (CLI without --json) */
        int cancel_fd;              /* -1, or readable/hup => kill the sandbox (MCP) */
        bool no_patch;              /* the report carries no patch (MCP unless the call asks) */
        /* stream: the caller's state of its stderr, through which the program's
         * lines that could pass for ours are marked (outmark.h); also used for
         * stdout when that is the same file. NULL: passed unmarked. */
        acs_outmark *mark;
        /* ACS_RUN_CODE without code: start the sandbox and its interpreter,
         * which wait for the code (acs_run_warm_start) */
        bool warm;
        bool session; /* warm: the interpreter takes call after call (acs_run_session_call) */
} acs_run_request;

/*
 * Run one sandbox. Returns < 0 only when acs-launch itself failed before the
 * report could say anything useful; otherwise fills rep (status error included).
 */
int acs_run(const acs_run_request *req, acs_report *rep, acs_error *err);

/*
 * --dry-run: plan the run exactly as acs_run() plans it and print the plan
 * (text, or one JSON object when json) to out. Creates nothing: no
 * namespace, mount, temp dir, cgroup or sandbox process.
 */
int acs_run_dry(const acs_run_request *req, FILE *out, bool json, acs_error *err);

/*
 * Warm mode (issue 14, the pool): start a Python run's sandbox -- confined,
 * limits set, the profile's interpreter started and waiting -- before the
 * code is known (req->kind ACS_RUN_CODE; req->code is ignored), then hand
 * it the code: it is scanned, run and reported exactly as acs_run() would,
 * with the timeout counted from the hand-over. req's profile and options
 * must outlive the warm run. A warm run serves one call; free it after
 * finish, or instead of finish to destroy an unused one. Finish returns
 * when the report is whole, which may be before init's exit has torn the
 * sandbox down: free reaps it (send the report first).
 */
typedef struct acs_run_warm acs_run_warm;
int acs_run_warm_start(const acs_run_request *req, acs_run_warm **ret, acs_error *err);
/* the sandbox's pidfd: readable when it died while waiting */
int acs_run_warm_pidfd(const acs_run_warm *w);
int acs_run_warm_finish(acs_run_warm *w, const char *code, size_t len, double timeout_s, int cancel_fd,
                        acs_report *rep, acs_error *err);
void acs_run_warm_free(acs_run_warm *w);

/*
 * Sessions (issue 14): a warm run started with req->session takes call
 * after call (session.c) in the same interpreter and workspace, each with
 * its own report (the workspace's changes since the session started);
 * < 0 when the call could not be handed over (rep still filled). The
 * session is over once its sandbox is gone (a timeout, a cancellation, a
 * program that ended the interpreter): free it with acs_run_warm_free.
 */
int acs_run_session_call(acs_run_warm *w, const char *code, size_t len, double timeout_s, int cancel_fd,
                         acs_report *rep, acs_error *err);
/*
 * A session's [limits] cpu counts each call (the supervisor samples the
 * sandbox's CPU time from the call's start); each process of the session
 * has RLIMIT_CPU at this many times it (plus a second): the session's bound.
 */
#define ACS_SESSION_CPU_CALLS 16
/* The next call's CPU limit, seconds (0: the plan's): a call's "cpu", which may only lower it. */
void acs_run_session_set_cpu(acs_run_warm *w, uint64_t cpu_s);
/* The same for execute_command in a session: /bin/sh -c cmd, run by the session's interpreter in its sandbox. */
int acs_run_session_command(acs_run_warm *w, const char *cmd, size_t len, const char *cwd, char *const *env,
                            double timeout_s, int cancel_fd, acs_report *rep, acs_error *err);
bool acs_run_session_alive(const acs_run_warm *w);
/*
 * Write data (len bytes) to path in the session's /workspace, or read it
 * (write false: *ret, *ret_len, the caller frees), by its interpreter in
 * its sandbox (session-files.h). An error names the path; one of the
 * protocol ends the session.
 */
int acs_run_session_file(acs_run_warm *w, bool write, const char *path, const void *data, size_t len, char **ret,
                         size_t *ret_len, acs_error *err);

/* The exit status the CLI returns for a report (interfaces.md §1). */
int acs_report_exit_status(const acs_report *r);
