/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The run report (interfaces.md §3): a plain struct filled by the engine, turned into JSON here. */
#pragma once

#include "common.h"
#include "diff.h"

struct json_object;

#define ACS_REPORT_SCHEMA "acs-report/1"

typedef enum {
        ACS_STATUS_EXITED,
        ACS_STATUS_TIMEOUT,
        ACS_STATUS_SIGNALED,
        ACS_STATUS_MEMORY,
        ACS_STATUS_REJECTED,
        ACS_STATUS_ERROR,
        ACS_STATUS_CPU,  /* killed at the CPU-time limit (the sandbox's total, or one process's) */
} acs_status;

typedef struct acs_finding {
        char *rule;    /* "forbidden-import" */
        char *name;    /* "os" */
        int line, col; /* 1-based line, 0-based column, as Python reports them */
        char *message;
} acs_finding;

typedef enum { ACS_VERDICT_SKIPPED, ACS_VERDICT_PASS, ACS_VERDICT_REJECT, ACS_VERDICT_WARN } acs_verdict;

typedef struct acs_scan_result {
        acs_verdict verdict;
        double ms;
        acs_finding *findings;
        size_t n_findings;
} acs_scan_result;

typedef struct acs_stream_result {
        char *text;            /* clipped text, valid UTF-8, NUL-terminated */
        size_t text_len;
        uint64_t bytes;        /* bytes the program wrote */
        uint64_t tokens;       /* estimated tokens of everything written (cleaned, unclipped) */
        bool truncated;        /* something was omitted (a marker line says what) */
        uint64_t omitted_bytes;  /* bytes the program wrote that the text leaves out */
        uint64_t omitted_lines;  /* lines left out (folded repeats are not omitted) */
        uint64_t omitted_tokens;
} acs_stream_result;

typedef struct acs_limits_result {
        double timeout_s;
        uint64_t memory, processes, cpu_s, file_size, open_files;
        const char *memory_enforced;    /* "cgroup2" | "rlimit" | "none" */
        const char *processes_enforced;
        const char *cpu_enforced;       /* "cgroup2" | "sampled" | "none": the sandbox's total */
        const char *memfd_enforced;     /* "cgroup2" | "denied" | "none" */
        const char *sysv_enforced;      /* "cgroup2" | "ipc-limits" | "denied" | "none" */
        const char *tmpfs_enforced;     /* "size": workspace_size bounds /tmp, /dev/shm, the upper layer */
} acs_limits_result;

/* The layers a run really got (the report's confinement object). */
typedef struct acs_confinement {
        bool present;          /* a sandbox was created */
        int landlock_abi;      /* 0: none */
        char *cgroup;          /* the run's cgroup v2 (path in the hierarchy), or NULL; owned */
} acs_confinement;

typedef struct acs_report {
        acs_status status;
        int exit_code;       /* program's exit status, or 124/125/126/127/128+N */
        int signal;          /* 0 = none */
        char *profile;
        acs_scan_result scan;
        acs_stream_result out, err;
        acs_changes files;
        bool have_files;
        acs_apply_result apply; /* --apply: what was written back */
        bool have_apply;
        bool apply_skipped;     /* --apply, but the run did not succeed (profile apply=success) or files.truncated */
        acs_limits_result limits;
        acs_confinement confinement;
        double wall_ms, user_ms, sys_ms;
        long max_rss_kb;
        double scan_ms, setup_ms, run_ms, diff_ms;
        char *error;         /* status == error: the launcher's message */
        char **scan_bypass;  /* variables allowed by [env] allow_loader that run code before the scan */
} acs_report;

void acs_report_done(acs_report *r); /* frees members, not r */
void acs_scan_result_done(acs_scan_result *s);
const char *acs_status_to_string(acs_status s);
struct json_object *acs_report_to_json(const acs_report *r);
/* The "scan" object of the report (also `check --json` and MCP inspect). */
struct json_object *acs_scan_result_to_json(const acs_scan_result *s);
/* Serialised JSON (one line unless pretty). Caller frees. */
char *acs_report_to_string(const acs_report *r, bool pretty);
/* The one report of a command that failed before it could run (usage, profile): status error. */
char *acs_report_error_string(const char *msg, int exit_code);
/* "pass" | "reject" | "warn" | "skipped" */
const char *acs_verdict_to_string(acs_verdict v);
/*
 * A short human summary for an agent or a terminal (the MCP text content):
 * a status line (what happened, exit code, wall time, scan verdict), the
 * scan findings, the clipped stdout and stderr, and the changed files (up
 * to 20). Always valid UTF-8. Caller frees; NULL on out of memory.
 */
char *acs_report_summary(const acs_report *r);
