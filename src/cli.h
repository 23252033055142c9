/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* argv -> options. Pure: no I/O, no environment. */
#pragma once

#include <stdio.h>

#include "common.h"

typedef enum {
        ACS_CMD_RUN,
        ACS_CMD_EXEC,
        ACS_CMD_CHECK,
        ACS_CMD_MCP,
        ACS_CMD_PROFILES,
        ACS_CMD_BENCH,
        ACS_CMD_DOCTOR,
        ACS_CMD_APPLY,
        ACS_CMD_HELP,
        ACS_CMD_VERSION,
        ACS_CMD_SERVE,  /* acs-launch mcp's server on a unix socket (serve.c) */
} acs_command;

typedef enum { ACS_MOUNT_RO_BIND, ACS_MOUNT_BIND, ACS_MOUNT_TMPFS } acs_mount_kind;

/* --stdin: what the program reads (input.h) */
typedef enum { ACS_STDIN_AUTO, ACS_STDIN_NULL, ACS_STDIN_PIPE, ACS_STDIN_TTY } acs_stdin_mode;

typedef struct acs_mount_opt {
        acs_mount_kind kind;
        char *src; /* NULL for tmpfs */
        char *dest;
} acs_mount_opt;

typedef struct acs_options {
        acs_command command;
        char *profile;       /* NULL: default for the command */
        char *workspace;
        /* overrides; has_* says whether given */
        bool has_timeout, has_memory, has_max_tokens, has_net, has_cpu;
        bool has_processes, has_open_files, has_file_size;
        uint64_t processes, open_files, file_size; /* as the [limits] keys */
        char *venv;          /* --venv DIR: [python] venv */
        char *show;          /* profiles --show NAME */
        double timeout;
        uint64_t memory;
        uint64_t cpu;        /* seconds: the whole sandbox's CPU time */
        uint64_t max_tokens;
        int net;             /* acs_net_mode */
        acs_mount_opt *mounts;
        size_t n_mounts;
        char **setenv;       /* "VAR=VALUE" */
        char **unsetenv;
        char *chdir;
        bool apply;
        char *patch;         /* FILE or "-" */
        char *keep;
        unsigned umask;      /* the caller's (main sets its own): filters what apply creates */
        bool json;
        acs_stdin_mode stdin_mode;
        char *report;
        bool quiet;
        bool dry_run;        /* run, exec: print the plan, create nothing */
        int verbose;
        char *code;          /* -c CODE */
        char **args;         /* SCRIPT ARGS / COMMAND ARGS / check FILE / apply DIR */
        /* mcp */
        unsigned max_concurrency; /* 0 = number of CPUs */
        /* command == ACS_CMD_HELP: whose usage (ACS_CMD_HELP: the overview) */
        acs_command help_topic;
        char **allow_profiles;    /* --allow-profile NAME...: names only */
        double max_timeout;       /* --max-timeout; 0 = the default (see acs_mcp_main) */
        char *http;               /* --http ADDR:PORT: Streamable HTTP instead of stdio (mcp-http.h) */
        char *http_token_file;    /* --http-token-file FILE */
        /* mcp, serve: --pool N ready sandboxes (pool.h); serve --socket PATH */
        bool has_pool;
        unsigned pool;
        char **pool_profiles;     /* --pool-profile NAME...: more pools, for allowed profiles */
        bool has_max_sessions, has_session_idle;
        unsigned max_sessions;    /* --max-sessions N */
        double session_idle;      /* --session-idle SEC: 0 = never */
        char *socket;
        /* run: --server PATH (has_server: given; server NULL: --no-server or --server ''),
         * else $ACS_SERVER (cli-server.h); --session ID needs a server */
        bool has_server;
        char *server;
        char *session;
} acs_options;

void acs_options_done(acs_options *o);
/* Parse argv (argv[0] is the program name). On error fills err (exit 125). */
int acs_cli_parse(int argc, char *const *argv, acs_options *ret, acs_error *err);
/* Usage of one subcommand, or the overview for ACS_CMD_HELP. */
void acs_cli_usage(FILE *out, acs_command topic);
/*
 * Did argv ask for --json? Answered also when acs_cli_parse fails, so that
 * a usage error can still be one JSON report: options are walked as the
 * parser walks them (values skipped, unknown options ignored).
 */
bool acs_cli_json_requested(int argc, char *const *argv);
/* Is id a session id (1 to 128 of A-Z a-z 0-9 . _ : -)? */
bool acs_cli_session_id_valid(const char *id);
/* Is word one of the subcommands (exec, check, mcp, ...)? */
bool acs_cli_is_subcommand(const char *word);
