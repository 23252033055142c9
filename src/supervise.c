/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * One poll loop for the whole run. Output is read as fast as the program
 * writes it and handed to the token shield, whose memory is bounded by the
 * budget: a flood costs CPU, not RAM, and the program never blocks on a
 * full pipe for long nor sees SIGPIPE because of the cap.
 */
#include <poll.h>
#include <stdio.h>
#include <signal.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/syscall.h>
#include <sys/timerfd.h>
#include <sys/wait.h>
#include <time.h>

#include "ansi.h"
#include "cputime.h"
#include "supervise.h"

#define SCAN_LINE_MAX (4u << 20)

double acs_now_ms(void)
{
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/*
 * Not acs_write_all: the live copy to our own stdout/stderr is best effort.
 * When the caller made that fd non-blocking and it is full (EAGAIN), or its
 * reader is gone (EPIPE), the rest is dropped rather than waited for or
 * reported: the supervisor goes on capturing, timing and reporting the run.
 */
static void write_or_drop(int fd, const char *buf, size_t len)
{
        while (len > 0) {
                ssize_t n = write(fd, buf, len);
                if (n < 0 && errno == EINTR)
                        continue;
                if (n <= 0)
                        return; /* our own stdout went away: keep capturing */
                buf += n;
                len -= (size_t)n;
        }
}

static void emit_fd(void *ud, const char *buf, size_t len)
{
        write_or_drop(*(const int *)ud, buf, len);
}

void acs_pass_through(acs_outmark *mark, int fd, const char *buf, size_t len)
{
        if (mark)
                acs_outmark_feed(mark, buf, len, emit_fd, &fd);
        else
                write_or_drop(fd, buf, len);
}

void acs_pass_flush(acs_outmark *mark, int fd)
{
        if (mark)
                acs_outmark_flush(mark, emit_fd, &fd);
}

void acs_pass_epilogue(acs_shield *sh, acs_outmark *const mark[2])
{
        for (int s = ACS_STDOUT; s <= ACS_STDERR; s++) {
                size_t len = 0;
                _cleanup_free_ char *ep = acs_shield_epilogue(sh, s, &len);
                if (ep && len)
                        acs_pass_through(mark[s], s == ACS_STDOUT ? 1 : 2, ep, len);
        }
}

/* The live head on its way to the caller's terminal: under ansi = strip
 * through the stream's filter, whose state spans reads, so that an escape
 * split between two of them is still dropped whole; then past the mark. */
void acs_pass_live(acs_outmark *mark, int fd, acs_term_filter *f, const char *buf, size_t len)
{
        char out[ACS_TERM_FILTER_OUT(4096)];
        if (!f) {
                acs_pass_through(mark, fd, buf, len);
                return;
        }
        for (size_t off = 0, n; off < len; off += n) {
                n = len - off < 4096 ? len - off : 4096;
                acs_pass_through(mark, fd, out, acs_term_filter_feed(f, buf + off, n, out));
        }
}

/* Drain what is readable now; returns false at EOF. */
static bool pump(int fd, int stream, const acs_supervise_in *in, acs_term_filter *f)
{
        char buf[65536];
        for (int rounds = 0; rounds < 16; rounds++) {
                ssize_t n = read(fd, buf, sizeof buf);
                if (n < 0 && errno == EINTR)
                        continue;
                if (n < 0)
                        return errno == EAGAIN;
                if (n == 0)
                        return false;
                size_t live = acs_shield_feed(in->shield, stream, buf, (size_t)n);
                if (in->stream && live > 0)
                        acs_pass_live(in->mark[stream], stream == ACS_STDOUT ? 1 : 2, in->strip_ansi ? f : NULL, buf,
                                   live);
        }
        return true;
}

static int read_scan(int fd, char **buf, size_t *len)
{
        char tmp[8192];
        ssize_t n = read(fd, tmp, sizeof tmp);
        if (n < 0)
                return errno == EINTR || errno == EAGAIN ? 1 : -errno;
        if (n == 0)
                return 0;
        if (*len + (size_t)n > SCAN_LINE_MAX)
                return 0; /* bounded: a well-behaved module writes far less */
        char *nb = realloc(*buf, *len + (size_t)n + 1);
        if (!nb)
                return -ENOMEM;
        memcpy(nb + *len, tmp, (size_t)n);
        *len += (size_t)n;
        nb[*len] = '\0';
        *buf = nb;
        return 1;
}

static int set_timer(int fd, double seconds)
{
        struct itimerspec its = { 0 };
        its.it_value.tv_sec = (time_t)seconds;
        its.it_value.tv_nsec = (long)((seconds - (double)(time_t)seconds) * 1e9);
        if (its.it_value.tv_sec == 0 && its.it_value.tv_nsec == 0)
                its.it_value.tv_nsec = 1;
        return timerfd_settime(fd, 0, &its, NULL) < 0 ? -errno : 0;
}

/*
 * The CPU sampler's tick: read the sandbox's total, kill at the limit, else
 * sleep for what is left divided by the CPUs that could use it. A sandbox
 * whose processes cannot be read any more is ending: no more samples.
 */
static void cpu_tick(const acs_supervise_in *in, int fd, acs_supervise_out *out)
{
        uint64_t expirations;
        int64_t used = 0;
        (void)!read(fd, &expirations, sizeof expirations);
        if (acs_sandbox_cpu_us(in->cgroup_fd, in->sb->pid, &used) < 0)
                return;
        if (used >= in->cpu_limit_us) {
                out->cpu_killed = true;
                acs_sandbox_kill(in->sb);
                return;
        }
        int ncpu = (int)sysconf(_SC_NPROCESSORS_ONLN);
        (void)set_timer(fd, (double)acs_cpu_next_sample_ms(in->cpu_limit_us, used, ncpu) / 1e3);
}

static int arm_timer(double seconds)
{
        int fd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);
        if (fd < 0)
                return -errno;
        int r = set_timer(fd, seconds);
        if (r < 0) {
                close(fd);
                return r;
        }
        return fd;
}

static void trace(const acs_supervise_in *in, const char *what)
{
        if (in->trace_t0 > 0)
                acs_trace_to(STDERR_FILENO, in->trace_t0, "%s", what);
}

enum { PF_OUT, PF_ERR, PF_SYNC, PF_PID, PF_TIMER, PF_SIG, PF_CANCEL, PF_SCAN, PF_CPU, PF_STDIN, PF_MAX };

/* One message from the sandbox; false at EOF. */
static bool handle_msg(acs_sandbox *sb, acs_supervise_out *out, double t0, double *t_start)
{
        int st = 0;
        int64_t cpu = 0;
        acs_error ce = { 0 };
        int r = acs_sandbox_read_msg(sb, &st, &cpu, &ce);
        switch (r) {
        case ACS_MSG_STATUS:
                out->have_status = true;
                out->wait_status = st;
                out->program_cpu_us = cpu;
                out->run_ms = acs_now_ms() - (*t_start ?: t0);
                return true;
        case ACS_MSG_STARTED:
                out->started = true;
                *t_start = acs_now_ms();
                out->setup_ms = *t_start - t0;
                return true;
        case ACS_MSG_ERROR:
                /* the first error is the cause; keep it */
                if (!out->child_failed) {
                        out->child_failed = true;
                        out->child_err = ce;
                }
                return true;
        case ACS_MSG_FDS:
                return true;
        default:
                return false;
        }
}

int acs_supervise(const acs_supervise_in *in, acs_supervise_out *out, acs_error *err)
{
        struct pollfd p[PF_MAX];
        _cleanup_close_ int timer = -1, cpu_timer = -1;
        _cleanup_free_ char *scan = NULL;
        size_t scan_len = 0;
        bool out_open = true, err_open = true, sync_open = true, dead = false, scan_open = in->scan_fd >= 0;
        double t0 = in->t_spawn ?: acs_now_ms(), t_start = 0;
        acs_term_filter filt[2] = { 0 };
        int r;

        if (in->timeout_s > 0 && (timer = arm_timer(in->timeout_s)) < 0)
                return acs_error_errno(err, timer, "supervise", "timerfd");
        /* no sample before the fastest possible burn of the whole budget */
        if (in->cpu_limit_us > 0 &&
            (cpu_timer = arm_timer((double)acs_cpu_next_sample_ms(in->cpu_limit_us, 0,
                                                                  (int)sysconf(_SC_NPROCESSORS_ONLN)) / 1e3)) < 0)
                return acs_error_errno(err, cpu_timer, "supervise", "timerfd");

        /* the loop ends when the output is read and the sandbox has ended:
         * init gone, or its status message (nothing but init is left, and
         * init, exiting, is reaped by the caller) */
        while (out_open || err_open || !(dead || out->have_status) || scan_open) {
                for (int i = 0; i < PF_MAX; i++)
                        p[i] = (struct pollfd){ .fd = -1, .events = POLLIN };
                if (out_open)
                        p[PF_OUT].fd = in->out_fd;
                if (err_open)
                        p[PF_ERR].fd = in->err_fd;
                if (sync_open)
                        p[PF_SYNC].fd = in->sb->sync_fd;
                if (!dead && !out->have_status) {
                        p[PF_PID].fd = in->sb->pidfd;
                        p[PF_TIMER].fd = timer;
                        p[PF_CANCEL].fd = in->cancel_fd;
                        p[PF_CPU].fd = cpu_timer;
                }
                p[PF_SIG].fd = in->signal_fd;
                if (scan_open)
                        p[PF_SCAN].fd = in->scan_fd;
                if (in->input && !dead && !out->have_status)
                        acs_input_pollfd(in->input, &p[PF_STDIN]);

                if (poll(p, PF_MAX, -1) < 0) {
                        if (errno == EINTR)
                                continue;
                        r = acs_error_errno(err, -errno, "supervise", "poll");
                        acs_sandbox_kill(in->sb);
                        return r;
                }
                if (p[PF_OUT].revents && !pump(in->out_fd, ACS_STDOUT, in, &filt[ACS_STDOUT]))
                        out_open = false;
                if (p[PF_ERR].revents && !pump(in->err_fd, ACS_STDERR, in, &filt[ACS_STDERR]))
                        err_open = false;
                if (p[PF_STDIN].revents)
                        acs_input_relay(in->input);
                if (p[PF_SCAN].revents && (r = read_scan(in->scan_fd, &scan, &scan_len)) <= 0)
                        scan_open = false;
                if (p[PF_SYNC].revents) {
                        bool had = out->have_status;
                        sync_open = handle_msg(in->sb, out, t0, &t_start);
                        if (!had && out->have_status)
                                trace(in, "program ended, the rest killed and reaped");
                }
                if (p[PF_SIG].revents) {
                        struct signalfd_siginfo si;
                        if (read(in->signal_fd, &si, sizeof si) == sizeof si) {
                                out->launcher_signal = (int)si.ssi_signo;
                                acs_sandbox_kill(in->sb);
                        }
                }
                if (p[PF_TIMER].revents) {
                        out->timed_out = true;
                        acs_sandbox_kill(in->sb);
                }
                if (p[PF_CPU].revents)
                        cpu_tick(in, cpu_timer, out);
                if (p[PF_CANCEL].revents) {
                        out->cancelled = true;
                        acs_sandbox_kill(in->sb);
                }
                if (p[PF_PID].revents) {
                        siginfo_t si = { 0 };
                        /* raw waitid: glibc's wrapper drops the rusage argument */
                        if (syscall(SYS_waitid, P_PIDFD, in->sb->pidfd, &si, WEXITED, &out->ru) == 0) {
                                dead = true;
                                trace(in, "init gone: nothing of the sandbox is left");
                                in->sb->pid = -1;
                                /* Init is gone, so the whole pid namespace is. Any
                                 * message it sent is already queued. */
                                while (sync_open)
                                        sync_open = handle_msg(in->sb, out, t0, &t_start);
                        } else if (errno != EINTR) {
                                dead = true;
                        }
                }
        }
        if (in->sb->ended.valid) {
                /* the sandbox's usage as init counted it (sync-proto.h) */
                const acs_sandbox_usage *u = &in->sb->ended;
                out->ru.ru_utime = (struct timeval){ u->user_us / 1000000, u->user_us % 1000000 };
                out->ru.ru_stime = (struct timeval){ u->sys_us / 1000000, u->sys_us % 1000000 };
                out->ru.ru_maxrss = u->max_rss_kb;
        }
        if (scan)
                out->scan_line = TAKE_PTR(scan);
        return 0;
}
