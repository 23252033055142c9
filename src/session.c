/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * One call of a session (issue 14): a warm run started with req->session,
 * whose interpreter (scan-ext's session()) takes call after call in the
 * same __main__ and the same workspace. Each call is scanned and clipped
 * and gets its own report: its status, its output, and the workspace's
 * changes since the session started. The session ends with its sandbox:
 * a timeout, a cancellation, or a program that ends the interpreter.
 */
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/timerfd.h>
#include <sys/wait.h>

#include "clip.h"
#include "cputime.h"
#include "run-warm.h"
#include "scan-policy.h"
#include "scan.h"
#include "session-files.h"
#include "ansi.h"
#include "supervise.h"

#define SESSION_LINE_MAX (4u << 20)

static int send_call(int fd, const acs_profile *prof, const char *code, size_t len, acs_error *err)
{
        _cleanup_free_ char *pol = NULL;
        size_t plen = 0;
        int r;
        if ((r = acs_scan_policy_pack(prof, "<string>", true, &pol, &plen)) < 0)
                return acs_error_set(err, r, "scan", "cannot pack the scan policy");
        uint32_t n = (uint32_t)plen, c = (uint32_t)len;
        if (len > UINT32_MAX / 2)
                return acs_error_set(err, -E2BIG, "session", "the code is too long");
        if ((r = acs_write_all(fd, &n, sizeof n)) < 0 || (r = acs_write_all(fd, pol, plen)) < 0 ||
            (r = acs_write_all(fd, &c, sizeof c)) < 0 || (r = acs_write_all(fd, code, len)) < 0)
                return acs_error_errno(err, r, "session", "handing the code to the session");
        return 0;
}

/* A command (session-files.h): /bin/sh -c CMD, in cwd, with env added. */
static int send_command(int fd, const char *cmd, size_t len, const char *cwd, char *const *env, acs_error *err)
{
        uint32_t op = ACS_SESSION_OP_COMMAND, n = (uint32_t)len, cl = cwd ? (uint32_t)strlen(cwd) : 0, ne = 0;
        int r;
        if (len > ACS_SESSION_CMD_MAX)
                return acs_error_set(err, -E2BIG, "session", "the command is longer than %u MiB", ACS_SESSION_CMD_MAX >> 20);
        for (char *const *e = env; e && *e; e++)
                ne++;
        if ((r = acs_write_all(fd, &op, sizeof op)) < 0 || (r = acs_write_all(fd, &n, sizeof n)) < 0 ||
            (r = acs_write_all(fd, cmd, len)) < 0 || (r = acs_write_all(fd, &cl, sizeof cl)) < 0 ||
            (r = acs_write_all(fd, cwd ? cwd : "", cl)) < 0 || (r = acs_write_all(fd, &ne, sizeof ne)) < 0)
                return acs_error_errno(err, r, "session", "handing the command to the session");
        for (char *const *e = env; e && *e; e++) {
                uint32_t el = (uint32_t)strlen(*e);
                if ((r = acs_write_all(fd, &el, sizeof el)) < 0 || (r = acs_write_all(fd, *e, el)) < 0)
                        return acs_error_errno(err, r, "session", "handing the command to the session");
        }
        return 0;
}


/* A call's output as it comes: the head live when the request streams (the CLI's sessions), as supervise.c does. */
typedef struct live_out {
        bool on;
        acs_outmark *mark[2];
        acs_term_filter filt[2], *f[2];
} live_out;

static void drain(int fd, int stream, acs_shield *sh, live_out *lo)
{
        char buf[65536];
        for (;;) {
                ssize_t n = read(fd, buf, sizeof buf);
                if (n < 0 && errno == EINTR)
                        continue;
                if (n <= 0)
                        return;
                size_t live = acs_shield_feed(sh, stream, buf, (size_t)n);
                if (lo->on && live > 0)
                        acs_pass_live(lo->mark[stream], stream == ACS_STDOUT ? 1 : 2, lo->f[stream], buf, live);
        }
}

typedef struct call_state {
        char *lines;
        size_t len;
        char *verdict;          /* the scan's line */
        bool done, dead, timed_out, cancelled, have_status, sync_eof, cpu_killed;
        int64_t cpu_limit_us, cpu_base_us; /* the call's CPU limit (0: none), the sandbox's CPU at its start */
        int status;             /* from "D STATUS", or the wait status when dead */
} call_state;

/* Complete lines from the interpreter: the verdict, then "D STATUS". */
static void take_lines(call_state *cs)
{
        char *nl;
        while (!cs->done && (nl = memchr(cs->lines, '\n', cs->len))) {
                *nl = '\0';
                if (cs->lines[0] == '{' && !cs->verdict)
                        cs->verdict = strdup(cs->lines);
                else if (cs->lines[0] == 'D' && cs->lines[1] == ' ') {
                        cs->done = true;
                        cs->status = atoi(cs->lines + 2);
                }
                size_t used = (size_t)(nl - cs->lines) + 1;
                memmove(cs->lines, nl + 1, cs->len - used);
                cs->len -= used;
        }
}

static void read_lines(int fd, call_state *cs)
{
        char tmp[8192];
        ssize_t n = read(fd, tmp, sizeof tmp);
        if (n < 0 && (errno == EINTR || errno == EAGAIN))
                return;
        if (n <= 0 || cs->len + (size_t)n > SESSION_LINE_MAX) {
                cs->dead = true;
                return;
        }
        char *b = realloc(cs->lines, cs->len + (size_t)n + 1);
        if (!b) {
                cs->dead = true;
                return;
        }
        cs->lines = b;
        memcpy(cs->lines + cs->len, tmp, (size_t)n);
        cs->len += (size_t)n;
        take_lines(cs);
}

static int arm(double seconds)
{
        int fd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);
        struct itimerspec its = { .it_value = { .tv_sec = (time_t)seconds,
                                                .tv_nsec = (long)((seconds - (double)(time_t)seconds) * 1e9) } };
        if (fd >= 0 && its.it_value.tv_sec == 0 && its.it_value.tv_nsec == 0)
                its.it_value.tv_nsec = 1;
        if (fd >= 0 && timerfd_settime(fd, 0, &its, NULL) < 0) {
                close(fd);
                return -1;
        }
        return fd;
}

/* Init's messages: the layers' fds (for the diff), the program's start, its status at its end. */
static void read_sync(acs_run_warm *w, call_state *cs)
{
        int st = 0;
        int64_t cpu = 0;
        acs_error ce = { 0 };
        int r = acs_sandbox_read_msg(&w->sb, &st, &cpu, &ce);
        if (r <= 0)
                cs->sync_eof = true;
        else if (r == ACS_MSG_STATUS) {
                cs->have_status = true;
                cs->status = st;
        }
}

static void read_sync_queued(acs_run_warm *w, call_state *cs)
{
        struct pollfd p = { .fd = w->sb.sync_fd, .events = POLLIN };
        while (!cs->sync_eof && !cs->have_status && poll(&p, 1, 0) > 0)
                read_sync(w, cs);
}

static int cpu_cgroup_fd(const acs_run_warm *w)
{
        return w->sb.in_cgroup ? w->cg.dir_fd : -1;
}

/*
 * The call's CPU time so far against its limit: ms until the next sample
 * (-1: no limit), or the sandbox killed at the limit (cs->cpu_killed).
 */
static int sample_cpu(acs_run_warm *w, call_state *cs)
{
        static int ncpu;
        int64_t now = 0;
        if (!cs->cpu_limit_us)
                return -1;
        if (!ncpu)
                ncpu = (int)sysconf(_SC_NPROCESSORS_ONLN) > 0 ? (int)sysconf(_SC_NPROCESSORS_ONLN) : 1;
        if (acs_sandbox_cpu_us(cpu_cgroup_fd(w), w->sb.pid, &now) < 0)
                return 1000; /* the wall-clock timeout and RLIMIT_CPU still bound it */
        if (now - cs->cpu_base_us >= cs->cpu_limit_us) {
                cs->dead = cs->cpu_killed = true;
                return -1;
        }
        return (int)acs_cpu_next_sample_ms(cs->cpu_limit_us, now - cs->cpu_base_us, ncpu);
}

/* Wait for the call's end: its "D" line, or the sandbox's. */
static void wait_call(acs_run_warm *w, int cancel_fd, double timeout_s, call_state *cs, acs_shield *sh, live_out *lo)
{
        _cleanup_close_ int timer = timeout_s > 0 ? arm(timeout_s) : -1;
        int next = sample_cpu(w, cs);
        while (!cs->done && !cs->dead) {
                struct pollfd p[7] = {
                        { .fd = w->outp[0], .events = POLLIN }, { .fd = w->errp[0], .events = POLLIN },
                        { .fd = w->scanp[0], .events = POLLIN }, { .fd = w->sb.pidfd, .events = POLLIN },
                        { .fd = timer, .events = POLLIN }, { .fd = cancel_fd, .events = POLLIN },
                        { .fd = cs->sync_eof ? -1 : w->sb.sync_fd, .events = POLLIN },
                };
                int n = poll(p, 7, next);
                if (n < 0) {
                        if (errno == EINTR)
                                continue;
                        cs->dead = true;
                        break;
                }
                if (n == 0) {
                        next = sample_cpu(w, cs);
                        continue;
                }
                if (p[0].revents)
                        drain(w->outp[0], ACS_STDOUT, sh, lo);
                if (p[1].revents)
                        drain(w->errp[0], ACS_STDERR, sh, lo);
                if (p[2].revents)
                        read_lines(w->scanp[0], cs);
                if (p[3].revents)
                        cs->dead = true;
                if (p[4].revents)
                        cs->dead = cs->timed_out = true;
                if (p[5].revents)
                        cs->dead = cs->cancelled = true;
                if (p[6].revents)
                        read_sync(w, cs);
        }
}

/* The sandbox is gone or must go: kill it, take init's report of the program's status, drain. */
static void end_sandbox(acs_run_warm *w, call_state *cs, acs_shield *sh, live_out *lo)
{
        acs_sandbox_kill(&w->sb);
        if (w->sb.pid > 0) {
                /* init is our child: reaped here, the layers' fds kept for the diff */
                siginfo_t si;
                while (waitid(P_PIDFD, w->sb.pidfd, &si, WEXITED) < 0 && errno == EINTR)
                        ;
                w->sb.pid = -1;
        }
        while (!cs->sync_eof)
                read_sync(w, cs);
        drain(w->outp[0], ACS_STDOUT, sh, lo);
        drain(w->errp[0], ACS_STDERR, sh, lo);
}

static void classify(const call_state *cs, acs_report *rep)
{
        if (cs->timed_out) {
                rep->status = ACS_STATUS_TIMEOUT;
                rep->exit_code = 124;
                rep->signal = SIGKILL;
        } else if (cs->cpu_killed) {
                rep->status = ACS_STATUS_CPU;
                rep->signal = SIGKILL;
                rep->exit_code = 128 + SIGKILL;
        } else if (cs->done) {
                rep->status = ACS_STATUS_EXITED;
                rep->exit_code = cs->status;
        } else if (cs->have_status && WIFEXITED(cs->status)) {
                rep->status = ACS_STATUS_EXITED; /* the program ended the interpreter itself */
                rep->exit_code = WEXITSTATUS(cs->status);
        } else {
                rep->status = ACS_STATUS_SIGNALED;
                rep->signal = cs->have_status && WIFSIGNALED(cs->status) ? WTERMSIG(cs->status) : SIGKILL;
                rep->exit_code = 128 + rep->signal;
        }
        if (rep->status == ACS_STATUS_EXITED && rep->exit_code == 126 && rep->scan.verdict == ACS_VERDICT_REJECT)
                rep->status = ACS_STATUS_REJECTED;
}

/* A call of the session: Python code, or a command when command is set. */
static int session_run(acs_run_warm *w, const char *code, size_t len, bool command, const char *cwd,
                       char *const *env, double timeout_s, int cancel_fd, acs_report *rep, acs_error *err)
{
        const acs_profile *prof = w->req.profile;
        double t0 = acs_now_ms();
        struct timespec start;
        call_state cs = { 0 };
        int r;

        clock_gettime(CLOCK_REALTIME, &start);
        *rep = (acs_report){ .status = ACS_STATUS_ERROR, .exit_code = 125 };
        rep->profile = strdup(prof->name ? prof->name : "");
        rep->scan.verdict = ACS_VERDICT_SKIPPED;
        acs_run_fill_limits(rep, &w->p);
        rep->limits.timeout_s = timeout_s;
        acs_run_fill_confinement(rep, &w->sb, &w->cg);
        if (w->call_cpu_s && (!rep->limits.cpu_s || w->call_cpu_s < rep->limits.cpu_s))
                rep->limits.cpu_s = w->call_cpu_s;
        w->call_cpu_s = 0; /* for this call only */
        if (w->sb.pid < 0)
                return acs_error_set(err, -ESRCH, "session", "the session has ended: its sandbox is gone");
        cs.cpu_limit_us = (int64_t)rep->limits.cpu_s * 1000000;
        if (cs.cpu_limit_us && acs_sandbox_cpu_us(cpu_cgroup_fd(w), w->sb.pid, &cs.cpu_base_us) < 0)
                cs.cpu_base_us = 0; /* counted from the session's start: never more than the limit */
        _cleanup_shield_ acs_shield *sh = acs_shield_new(w->p.max_tokens, prof->ansi == ACS_ANSI_STRIP);
        if (!sh)
                return acs_error_set(err, -ENOMEM, "session", "out of memory");
        live_out lo = { .on = w->req.stream, .mark = { acs_same_file(STDOUT_FILENO, STDERR_FILENO) ? w->req.mark : NULL,
                                                        w->req.mark } };
        for (int i = 0; i < 2; i++)
                lo.f[i] = prof->ansi == ACS_ANSI_STRIP ? &lo.filt[i] : NULL;
        if ((r = command ? send_command(w->scanp[0], code, len, cwd, env, err)
                         : send_call(w->scanp[0], prof, code, len, err)) < 0) {
                end_sandbox(w, &cs, sh, &lo);
                return r;
        }
        wait_call(w, cancel_fd, timeout_s, &cs, sh, &lo);
        if (cs.dead)
                end_sandbox(w, &cs, sh, &lo);
        else {
                read_sync_queued(w, &cs); /* the layers' fds, if they came with this call */
                /* the interpreter flushed its stdio before "D": all of it is in the pipes */
                drain(w->outp[0], ACS_STDOUT, sh, &lo);
                drain(w->errp[0], ACS_STDERR, sh, &lo);
        }
        acs_scan_result sr = { 0 };
        if (cs.verdict && acs_scan_result_from_json(cs.verdict, &sr) >= 0) {
                acs_scan_result_done(&rep->scan);
                rep->scan = sr;
                rep->scan_ms = sr.ms;
        }
        classify(&cs, rep);
        acs_shield_finish(sh, &rep->out, &rep->err);
        if (lo.on) {
                acs_pass_epilogue(sh, lo.mark);
                acs_pass_flush(w->req.mark, STDERR_FILENO);
        }
        /* the workspace against the session's start: the upper layer holds every call's changes */
        r = acs_run_finish_workspace(&w->req, &w->sb, &start, -1, rep, err);
        rep->run_ms = acs_now_ms() - t0;
        rep->wall_ms = rep->run_ms;
        free(cs.lines);
        free(cs.verdict);
        return r;
}

int acs_run_session_call(acs_run_warm *w, const char *code, size_t len, double timeout_s, int cancel_fd,
                         acs_report *rep, acs_error *err)
{
        return session_run(w, code, len, false, NULL, NULL, timeout_s, cancel_fd, rep, err);
}

int acs_run_session_command(acs_run_warm *w, const char *cmd, size_t len, const char *cwd, char *const *env,
                            double timeout_s, int cancel_fd, acs_report *rep, acs_error *err)
{
        return session_run(w, cmd, len, true, cwd, env, timeout_s, cancel_fd, rep, err);
}

void acs_run_session_set_cpu(acs_run_warm *w, uint64_t cpu_s)
{
        w->call_cpu_s = cpu_s;
}

bool acs_run_session_alive(const acs_run_warm *w)
{
        return w->sb.pid > 0;
}
