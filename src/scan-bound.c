/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The scan of code from outside, bounded (issue 18). `check` and MCP
 * inspect_code_security run the embedded interpreter in the host, outside
 * any sandbox: a few bytes of hostile source must not cost the host
 * gigabytes or minutes, nor hold an MCP worker slot for long. So the scan
 * runs in a child process, forked before libpython is loaded (the parent
 * never loads it), under
 *   - RLIMIT_CPU: the profile's `cpu` seconds (10 when it sets none),
 *   - RLIMIT_AS: the profile's `memory` (1 GiB when it sets none, at least
 *     128 MiB) more address space than the child starts with,
 *   - a wall clock of ten times the CPU limit and 10 s more, kept by the
 *     parent: a backstop, since a scan reads no input and waits for nothing;
 *     the CPU limit is what stops it, and on a busy machine (a load of 20 on
 *     2 CPUs here) one CPU second can take ten seconds of wall clock,
 * which is what a run of the same code gets for its in-sandbox scan and its
 * program together. The child sends its result back as one JSON object on a
 * pipe. A child stopped by a limit -- killed at the CPU limit, out of
 * memory, past the wall clock, or dead of a signal -- becomes a finding with
 * rule scan-limit and verdict reject: never a hang, a crash or a pass.
 */
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <json-c/json.h>

#include "scan.h"
#include "supervise.h"

#define SCAN_CPU_DEFAULT 10
#define SCAN_MEMORY_DEFAULT ((rlim_t)1 << 30)
#define SCAN_MEMORY_MIN ((rlim_t)128 << 20)
/* Room to report the result once the scan is done (json-c allocates). */
#define SCAN_REPORT_SLACK ((rlim_t)16 << 20)
/* A result is at most 200 findings of clipped text: far below this. */
#define SCAN_RESULT_MAX (8u << 20)

typedef struct scan_limits {
        rlim_t cpu_s;
        rlim_t memory;
        double wall_s;
} scan_limits;

static scan_limits limits_for(const acs_profile *p)
{
        scan_limits l = {.cpu_s = p->cpu ? (rlim_t)p->cpu : SCAN_CPU_DEFAULT,
                         .memory = p->memory ? (rlim_t)p->memory : SCAN_MEMORY_DEFAULT};
        if (l.memory < SCAN_MEMORY_MIN)
                l.memory = SCAN_MEMORY_MIN;
        l.wall_s = 10.0 * (double)l.cpu_s + 10.0;
        return l;
}

#ifndef __SANITIZE_ADDRESS__ /* used only without ASan (set_limits) */
/* The child's address space now, from /proc/self/statm; 256 MiB when unknown. */
static rlim_t address_space_now(void)
{
        unsigned long pages = 0;
        FILE *f = fopen("/proc/self/statm", "re");
        if (f) {
                if (fscanf(f, "%lu", &pages) != 1)
                        pages = 0;
                fclose(f);
        }
        return pages ? (rlim_t)pages * (rlim_t)sysconf(_SC_PAGESIZE) : (rlim_t)256 << 20;
}
#endif

static int set_limits(const scan_limits *l, rlim_t *as_hard)
{
        struct rlimit core = {0, 0}, cpu = {l->cpu_s, l->cpu_s + 1};
        if (setrlimit(RLIMIT_CORE, &core) < 0 || setrlimit(RLIMIT_CPU, &cpu) < 0)
                return -errno;
#ifndef __SANITIZE_ADDRESS__ /* ASan reserves terabytes of shadow: no address-space limit there */
        rlim_t base = address_space_now();
        struct rlimit as = {base + l->memory, base + l->memory + SCAN_REPORT_SLACK};
        if (setrlimit(RLIMIT_AS, &as) < 0)
                return -errno;
        *as_hard = as.rlim_max;
#else
        *as_hard = 0;
#endif
        return 0;
}

static struct json_object *error_json(const acs_error *e)
{
        struct json_object *o = json_object_new_object(), *x = json_object_new_object();
        json_object_object_add(x, "code", json_object_new_int(e->code));
        json_object_object_add(x, "exit_status", json_object_new_int(e->exit_status));
        json_object_object_add(x, "stage", json_object_new_string(e->stage));
        json_object_object_add(x, "msg", json_object_new_string(e->msg));
        json_object_object_add(o, "error", x);
        return o;
}

_noreturn_ static void child(int fd, const scan_limits *l, const acs_profile *p, const char *src, size_t len,
                             const char *filename, bool command, pid_t parent)
{
        acs_scan_result res = {0};
        acs_error err = {0};
        struct json_object *o;
        rlim_t as_hard = 0;
        int r;

        if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0 || getppid() != parent)
                _exit(1);
        signal(SIGPIPE, SIG_DFL);
        if ((r = set_limits(l, &as_hard)) < 0) {
                acs_error_errno(&err, r, "scan", "cannot limit the scan process");
                o = error_json(&err);
        } else {
                r = acs_scan_source(p, src, len, filename, command, &res, &err);
                if (as_hard) { /* the scan is over: let the report use the slack */
                        struct rlimit as = {as_hard, as_hard};
                        (void)setrlimit(RLIMIT_AS, &as);
                }
                if (r < 0) {
                        o = error_json(&err);
                } else {
                        o = json_object_new_object();
                        json_object_object_add(o, "scan", acs_scan_result_to_json(&res));
                }
        }
        const char *line = o ? json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN) : NULL;
        if (!line || acs_write_all(fd, line, strlen(line)) < 0 || acs_write_all(fd, "\n", 1) < 0)
                _exit(1);
        _exit(0);
}

/* The child's answer (up to EOF or the wall clock). 1: done, 0: timed out, < 0: error. */
static int read_answer(int fd, double wall_s, char **ret, size_t *ret_len)
{
        double end = acs_now_ms() + wall_s * 1e3;
        size_t len = 0, cap = 0;
        _cleanup_free_ char *buf = NULL;
        for (;;) {
                double left = end - acs_now_ms();
                struct pollfd pfd = {.fd = fd, .events = POLLIN};
                if (left <= 0)
                        return 0;
                int n = poll(&pfd, 1, left > 1e9 ? 1000000000 : (int)left + 1);
                if (n < 0 && errno == EINTR)
                        continue;
                if (n < 0)
                        return -errno;
                if (n == 0)
                        continue;
                if (len + 65536 + 1 > cap) {
                        if (cap >= SCAN_RESULT_MAX)
                                return -EFBIG;
                        size_t ncap = cap ? cap * 2 : 65536 * 2;
                        char *nb = realloc(buf, ncap);
                        if (!nb)
                                return -ENOMEM;
                        buf = nb;
                        cap = ncap;
                }
                ssize_t k = read(fd, buf + len, cap - len - 1);
                if (k < 0 && (errno == EINTR || errno == EAGAIN))
                        continue;
                if (k < 0)
                        return -errno;
                if (k == 0)
                        break;
                len += (size_t)k;
        }
        buf[len] = '\0';
        *ret = TAKE_PTR(buf);
        *ret_len = len;
        return 1;
}

/* A limit finding, the only one of the result: the scan did not finish. */
static int limit_result(acs_scan_result *ret, double ms, const char *name, const char *fmt, ...)
        _printf_(4, 5);
static int limit_result(acs_scan_result *ret, double ms, const char *name, const char *fmt, ...)
{
        acs_finding *f = calloc(1, sizeof *f);
        char *msg = NULL;
        va_list ap;

        va_start(ap, fmt);
        int n = vasprintf(&msg, fmt, ap);
        va_end(ap);
        if (n < 0)
                msg = NULL;
        if (!f || !msg || !(f->rule = strdup("scan-limit")) || !(f->name = strdup(name))) {
                if (f)
                        free(f->rule);
                free(f);
                free(msg);
                return -ENOMEM;
        }
        f->line = 1;
        f->message = msg;
        *ret = (acs_scan_result){.verdict = ACS_VERDICT_REJECT, .ms = ms, .findings = f, .n_findings = 1};
        return 0;
}

/* The child's JSON answer: a result, or the error it met. */
static int parse_answer(const char *line, const scan_limits *l, double ms, acs_scan_result *ret,
                        acs_error *err)
{
        struct json_object *o = json_tokener_parse(line), *v, *x;
        int r = -EPROTO;
        if (o && json_object_object_get_ex(o, "scan", &v)) {
                const char *s = json_object_to_json_string_ext(v, JSON_C_TO_STRING_PLAIN);
                r = acs_scan_result_from_json(s, ret);
        } else if (o && json_object_object_get_ex(o, "error", &v)) {
                int code = json_object_object_get_ex(v, "code", &x) ? json_object_get_int(x) : -EIO;
                const char *msg = json_object_object_get_ex(v, "msg", &x) ? json_object_get_string(x) : "";
                if (code == -ENOMEM) /* the walker's own allocations hit the address-space limit */
                        r = limit_result(
                                ret, ms, "memory",
                                "the scan ran out of memory (limit %llu MiB); it could not check the code",
                                (unsigned long long)(l->memory >> 20));
                else
                        r = acs_error_set(err, code < 0 ? code : -EIO, "scan", "%s", msg);
                json_object_put(o);
                return r;
        }
        json_object_put(o);
        return r < 0 ? acs_error_set(err, r, "scan", "the scan process sent a malformed result") : 0;
}

/* How the child ended, as a result or an error. */
static int conclude(pid_t pid, int answered, const char *line, const scan_limits *l, double t0,
                    acs_scan_result *ret, acs_error *err)
{
        struct rusage ru = {0};
        int st = 0;
        if (answered == 0)
                (void)kill(pid, SIGKILL);
        while (wait4(pid, &st, 0, &ru) < 0)
                if (errno != EINTR)
                        return acs_error_errno(err, -errno, "scan", "waitpid");
        double ms = acs_now_ms() - t0;
        double cpu = (double)ru.ru_utime.tv_sec + (double)ru.ru_stime.tv_sec +
                     ((double)ru.ru_utime.tv_usec + (double)ru.ru_stime.tv_usec) / 1e6;
        if (answered == 0)
                return limit_result(ret, ms, "time",
                                    "the scan took longer than %g s (wall clock) and was stopped", l->wall_s);
        if (answered < 0)
                return acs_error_errno(err, answered, "scan", "cannot read the scan's result");
        if (WIFSIGNALED(st) &&
            (WTERMSIG(st) == SIGXCPU || (WTERMSIG(st) == SIGKILL && cpu >= (double)l->cpu_s)))
                return limit_result(ret, ms, "cpu",
                                    "the scan used more than %llu s of CPU time and was stopped",
                                    (unsigned long long)l->cpu_s);
        if (WIFSIGNALED(st))
                return limit_result(
                        ret, ms, "signal",
                        "the scan process was killed by signal %d (%s) within its limits of %llu s CPU "
                        "and %llu MiB of memory; the code was not checked",
                        WTERMSIG(st), strsignal(WTERMSIG(st)), (unsigned long long)l->cpu_s,
                        (unsigned long long)(l->memory >> 20));
        if (!line || !*line)
                return limit_result(
                        ret, ms, "memory",
                        "the scan process ended (status %d) without a result, within its limits of "
                        "%llu MiB of memory; the code was not checked",
                        WIFEXITED(st) ? WEXITSTATUS(st) : -1, (unsigned long long)(l->memory >> 20));
        return parse_answer(line, l, ms, ret, err);
}

int acs_scan_bounded(const acs_profile *p, const char *src, size_t len, const char *filename, bool command,
                     acs_scan_result *ret, acs_error *err)
{
        scan_limits l = limits_for(p);
        _cleanup_free_ char *line = NULL;
        size_t line_len = 0;
        double t0 = acs_now_ms();
        int pfd[2];
        pid_t pid, parent = getpid();

        if (p->scan_mode == ACS_SCAN_OFF) {
                *ret = (acs_scan_result){.verdict = ACS_VERDICT_SKIPPED};
                return 0;
        }
        if (pipe2(pfd, O_CLOEXEC) < 0)
                return acs_error_errno(err, -errno, "scan", "pipe");
        fflush(NULL);
        if ((pid = fork()) < 0) {
                int r = -errno;
                close(pfd[0]);
                close(pfd[1]);
                return acs_error_errno(err, r, "scan", "fork");
        }
        if (pid == 0) {
                close(pfd[0]);
                child(pfd[1], &l, p, src, len, filename, command, parent);
        }
        close(pfd[1]);
        int answered = read_answer(pfd[0], l.wall_s, &line, &line_len);
        close(pfd[0]);
        return conclude(pid, answered, line, &l, t0, ret, err);
}
