/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The launcher's single poll loop: signals, timeout, output pipes, sandbox messages. */
#pragma once

#include <sys/resource.h>

#include "clip.h"
#include "outmark.h"
#include "input.h"
#include "sandbox.h"

typedef struct acs_supervise_in {
        acs_sandbox *sb;
        int out_fd, err_fd; /* read ends of the program's stdout/stderr pipes */
        int scan_fd;        /* read end of the in-sandbox scan verdict, or -1 */
        int signal_fd;      /* signalfd for SIGTERM/SIGINT/SIGHUP, or -1 */
        int cancel_fd;      /* -1, or readable/hangup => kill */
        double timeout_s;   /* 0 = none */
        int64_t cpu_limit_us; /* the sandbox's total CPU time; 0 = none (cputime.h) */
        int cgroup_fd;      /* the run's cgroup (cpu.stat), or -1: init's process tree */
        bool stream;        /* pass the live head through to fds 1 and 2 */
        bool strip_ansi;    /* ... through acs_term_filter ([output] ansi = strip) */
        acs_input *input;   /* the stdin relay to pump while the sandbox lives, or NULL */
        acs_shield *shield;
        double t_spawn;     /* acs_now_ms() when the clone began (setup_ms counts from it) */
        double trace_t0;    /* -v: trace the end of the run relative to this; 0 = quiet */
        acs_outmark *mark[2]; /* stream: marks lines that could pass for ours (may be one for both), or NULL */
} acs_supervise_in;

/* Write the program's live output to fd (1 or 2), through mark when not NULL. */
void acs_pass_through(acs_outmark *mark, int fd, const char *buf, size_t len);
/* At the end of the output: write what mark still holds to fd. */
void acs_pass_flush(acs_outmark *mark, int fd);
/* The live head on its way to fd: through f when not NULL (ansi = strip; its state spans calls), then mark. */
struct acs_term_filter;
/* After a streamed run: what the shield kept past the live head (the tail), to fds 1 and 2 through marks. */
void acs_pass_epilogue(acs_shield *sh, acs_outmark *const mark[2]);
void acs_pass_live(acs_outmark *mark, int fd, struct acs_term_filter *f, const char *buf, size_t len);

typedef struct acs_supervise_out {
        bool have_status;   /* the program's wait status arrived from init */
        int wait_status;
        int64_t program_cpu_us; /* its CPU time, from the rusage init's wait4 returned */
        bool started;       /* the program was started (exec or in-sandbox interpreter) */
        bool timed_out, cancelled;
        bool cpu_killed;    /* the sandbox's total CPU time reached cpu_limit_us */
        int launcher_signal; /* SIGTERM etc. received by the launcher */
        bool child_failed;  /* setup failed inside: see child_err */
        acs_error child_err;
        struct rusage ru;
        double setup_ms, run_ms;
        char *scan_line;    /* what the in-sandbox scan reported (NUL-terminated) */
} acs_supervise_out;

int acs_supervise(const acs_supervise_in *in, acs_supervise_out *out, acs_error *err);
double acs_now_ms(void);
