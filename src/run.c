/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The engine: profile + options -> plan -> sandbox -> supervise -> report.
 * The plan is pure (plan.c), from host facts gathered first (plan-facts.c);
 * --dry-run prints the same plan (acs_run_dry).
 * Both the CLI and the MCP server call acs_run(); it never exits and never
 * prints (except the live output stream the caller asked for).
 */
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>

#include "apply-policy.h"
#include "cgroup.h"
#include "diff.h"
#include "input.h"
#include "plan.h"
#include "scan-policy.h"
#include "scan.h"
#include "supervise.h"
#include "run-warm.h"

void acs_run_fill_limits(acs_report *rep, const acs_plan *p)
{
        rep->limits.timeout_s = p->timeout;
        rep->limits.memory = p->cfg.rl_as;
        rep->limits.processes = p->cfg.rl_nproc;
        rep->limits.cpu_s = p->cfg.rl_cpu;
        rep->limits.file_size = p->cfg.rl_fsize;
        rep->limits.open_files = p->cfg.rl_nofile;
        /* rlimits always; acs_run says cgroup2 where the run's cgroup sets the limit too */
        rep->limits.memory_enforced = p->cfg.rl_as ? "rlimit" : "none";
        rep->limits.processes_enforced = p->cfg.rl_nproc ? "rlimit" : "none";
        /* the sandbox's total, sampled from init's process tree unless a cgroup counts it */
        rep->limits.cpu_enforced = p->cfg.rl_cpu ? "sampled" : "none";
        rep->limits.tmpfs_enforced = "size";
}

/* The report's confinement and enforcement facts, once the sandbox exists. */
void acs_run_fill_confinement(acs_report *rep, const acs_sandbox *sb, const acs_cgroup *cg)
{
        rep->confinement.present = true;
        rep->confinement.landlock_abi = sb->landlock_abi;
        if (sb->in_cgroup) {
                /* honest: say cgroup2 only for the limits this cgroup really sets */
                if (cg->memory)
                        rep->limits.memory_enforced = "cgroup2";
                if (cg->pids)
                        rep->limits.processes_enforced = "cgroup2";
                if (rep->limits.cpu_s)
                        rep->limits.cpu_enforced = "cgroup2";
                rep->confinement.cgroup = strdup(cg->path);
        }
        rep->limits.memfd_enforced = acs_shm_bound_to_string(sb->memfd);
        rep->limits.sysv_enforced = acs_shm_bound_to_string(sb->sysv);
}

/*
 * A CPU-limit kill, from kernel evidence only: the supervisor's own kill at
 * the sandbox's total, or the program killed by its RLIMIT_CPU backstop
 * (SIGKILL at the hard limit, SIGXCPU at the soft one) after using at least
 * the limit itself (its rusage from init's wait4, which it cannot forge).
 */
static bool cpu_limit_kill(const acs_report *rep, const acs_supervise_out *so)
{
        if (so->cpu_killed)
                return true;
        int64_t limit_us = (int64_t)rep->limits.cpu_s * 1000000;
        return limit_us > 0 && rep->status == ACS_STATUS_SIGNALED &&
               (rep->signal == SIGKILL || rep->signal == SIGXCPU) && so->program_cpu_us >= limit_us;
}

static void classify(acs_report *rep, const acs_supervise_out *so)
{
        if (so->timed_out) {
                rep->status = ACS_STATUS_TIMEOUT;
                rep->exit_code = 124;
                rep->signal = SIGKILL;
                return;
        }
        if (so->child_failed) {
                rep->status = ACS_STATUS_ERROR;
                rep->exit_code = so->child_err.exit_status ?: 125;
                free(rep->error);
                rep->error = strdup(so->child_err.msg);
                return;
        }
        if (!so->have_status) {
                rep->status = ACS_STATUS_SIGNALED;
                rep->signal = so->launcher_signal ?: SIGKILL;
                rep->exit_code = 128 + rep->signal;
                return;
        }
        int st = so->wait_status;
        if (WIFSIGNALED(st)) {
                rep->status = ACS_STATUS_SIGNALED;
                rep->signal = WTERMSIG(st);
                rep->exit_code = 128 + rep->signal;
        } else {
                rep->status = ACS_STATUS_EXITED;
                rep->exit_code = WEXITSTATUS(st);
        }
}


static int open_pipe(int fds[2], acs_error *err)
{
        if (pipe2(fds, O_CLOEXEC) < 0)
                return acs_error_errno(err, -errno, "io", "pipe");
        fcntl(fds[0], F_SETFL, O_NONBLOCK);
        return 0;
}

/*
 * The scan channel: a socket pair whose sandbox end (fds[1], > 2) the
 * scanner reads the policy from and writes the verdict to.
 */
static int open_scan_channel(int fds[2], acs_error *err)
{
        if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) < 0)
                return acs_error_errno(err, -errno, "scan", "socketpair");
        int r = acs_fd_above_stdio(fds[1]); /* the program's stdio will take 0-2 */
        fds[1] = r < 0 ? -1 : r;
        return r < 0 ? acs_error_errno(err, r, "scan", "fcntl") : 0;
}

/*
 * The policy is written before the sandbox starts, whole (it is far below
 * the socket buffer), and our writing side shut, so the scanner reads to
 * EOF; our end is then non-blocking for the supervisor, which reads the
 * verdict. Findings name a script by its path inside the sandbox.
 */
static int send_scan_policy(int fd, const acs_profile *prof, const acs_plan *p, acs_error *err)
{
        _cleanup_free_ char *pol = NULL;
        size_t len = 0;
        int r;
        if ((r = acs_scan_policy_pack(prof, p->script ? p->script : "<string>", !p->script, &pol, &len)) < 0)
                return acs_error_set(err, r, "scan", r == -E2BIG ? "the profile's [scan] lists are too long (over %d KiB)"
                                                                 : "out of memory", ACS_SCAN_POLICY_MAX / 1024);
        if ((r = acs_write_all(fd, pol, len)) < 0)
                return acs_error_errno(err, r, "scan", "passing the policy");
        if (shutdown(fd, SHUT_WR) < 0)
                return acs_error_errno(err, -errno, "scan", "shutdown");
        fcntl(fd, F_SETFL, O_NONBLOCK);
        return 0;
}

/*
 * A script over max_source is refused with the scanner's own finding (the
 * launcher never reads more of it), so `check` and a run agree.
 */
static int refuse_too_large(acs_report *rep, const acs_profile *prof, uint64_t size)
{
        acs_finding *f = calloc(1, sizeof *f);
        if (!f)
                return -ENOMEM;
        *f = (acs_finding){ .rule = strdup("source-too-large"), .name = strdup("max_source"), .line = 1, .col = 0 };
        if (asprintf(&f->message, "the source is longer than max_source of profile %s (%llu > %llu bytes)",
                     prof->name ? prof->name : "?", (unsigned long long)size, (unsigned long long)prof->max_source) < 0)
                f->message = NULL;
        acs_scan_result_done(&rep->scan);
        rep->scan = (acs_scan_result){ .verdict = ACS_VERDICT_REJECT, .findings = f, .n_findings = 1 };
        if (!f->rule || !f->name || !f->message)
                return -ENOMEM; /* rep owns f: freed with the report */
        rep->status = ACS_STATUS_REJECTED;
        rep->exit_code = 126;
        return 0;
}

static void close_pair(int fds[2])
{
        closep(&fds[0]);
        closep(&fds[1]);
        fds[0] = fds[1] = -1;
}

/*
 * --apply that left changes unwritten (a conflict, an unsafe path, a failed
 * write; protected entries and special files are skipped by design) ends the
 * run with status error and exit status 125: the user asked for something
 * acs-launch could not do. The program's own status stays in the message.
 */
static void apply_outcome(acs_report *rep)
{
        const acs_apply_result *a = &rep->apply;
        if (!a->n_conflicts && !a->n_unsafe && !a->n_failed)
                return;
        char how[64], *msg = NULL;
        if (rep->status == ACS_STATUS_EXITED)
                snprintf(how, sizeof how, "exited with status %d", rep->exit_code);
        else
                snprintf(how, sizeof how, "ended with status %s (exit status %d)", acs_status_to_string(rep->status),
                         rep->exit_code);
        if (asprintf(&msg, "the program %s, but --apply left changes unwritten: %zu conflict%s, %zu unsafe path%s, "
                     "%zu failed (the apply list in the report says which)", how, a->n_conflicts,
                     a->n_conflicts == 1 ? "" : "s", a->n_unsafe, a->n_unsafe == 1 ? "" : "s", a->n_failed) < 0)
                msg = NULL;
        free(rep->error);
        rep->error = msg;
        rep->status = ACS_STATUS_ERROR;
        rep->exit_code = 125;
}

/*
 * After the program ended and before the layers go away: classify the upper
 * layer, then the patch, keep and apply the user asked for. patch_fd: the
 * --patch FILE opened before the run, or -1.
 */
int acs_run_finish_workspace(const acs_run_request *req, acs_sandbox *sb, const struct timespec *start,
                            int patch_fd, acs_report *rep, acs_error *err)
{
        const acs_profile *prof = req->profile;
        const acs_options *o = req->opts;
        int r;

        if (sb->upper_fd < 0)
                return 0;
        double t = acs_now_ms();
        /* acs-launch's own configuration is never written back (apply-host.c) */
        _cleanup_(acs_guards_done) acs_guards guards = { 0 };
        if (o && o->apply && o->workspace && (r = acs_guards_for_profile(prof->path, &guards, err)) < 0)
                return r;
        acs_diff_opts dopts = {
                .protect = prof->protect,
                .guards = &guards,
                /* reports carry the patch; a terminal user asks for it */
                .want_patch = (!req->stream && !req->no_patch) || (o && (o->patch || o->report || o->keep)),
                .max_entries = ACS_DIFF_MAX_ENTRIES,
                .max_list_bytes = ACS_DIFF_MAX_LIST_BYTES,
                .max_patch_bytes = ACS_DIFF_MAX_PATCH_BYTES,
        };
        if ((r = acs_diff_collect(sb->upper_fd, sb->lower_fd, &dopts, &rep->files, err)) < 0)
                return r;
        rep->have_files = true;
        rep->files.run_start = *start;
        /* before anything is written back: the host directories' ctimes now */
        acs_changes_mark_run_conflicts(&rep->files, sb->lower_fd);

        if (o && o->patch) {
                int fd = patch_fd >= 0 ? patch_fd : STDOUT_FILENO;
                if (fd == STDOUT_FILENO && fflush(stdout) != 0)
                        return acs_error_errno(err, -errno, "patch", "writing '%s'", o->patch);
                if (rep->files.patch && fd == STDOUT_FILENO && isatty(fd)) {
                        /* the program's bytes: never raw to a terminal under ansi = strip */
                        acs_term_fwrite(rep->files.patch, rep->files.patch_len, stdout, prof->ansi == ACS_ANSI_STRIP);
                        if (fflush(stdout) != 0)
                                return acs_error_errno(err, -errno, "patch", "writing '%s'", o->patch);
                } else if (rep->files.patch && (r = acs_write_all(fd, rep->files.patch, rep->files.patch_len)) < 0)
                        return acs_error_errno(err, r, "patch", "writing '%s'", o->patch);
        }
        if (o && o->keep && (r = acs_keep_layer(sb->upper_fd, &rep->files, o->keep, err)) < 0)
                return r;
        if (o && o->apply && o->workspace) {
                bool ok = rep->status == ACS_STATUS_EXITED && rep->exit_code == 0;
                bool go = prof->apply == ACS_APPLY_ALWAYS || (prof->apply == ACS_APPLY_SUCCESS && ok);
                /* a truncated list is part of the changes: never apply part */
                go = go && !rep->files.truncated;
                rep->apply_skipped = !go;
                if (go) {
                        /* the host directory itself: the sandbox's lower is a read-only bind */
                        _cleanup_close_ int ws = open(o->workspace, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
                        if (ws < 0)
                                return acs_error_errno(err, -errno, "apply", "cannot open '%s'", o->workspace);
                        acs_apply_opts ao = { .protect = prof->protect, .guards = &guards, .umask = o->umask };
                        if ((r = acs_apply_changes(sb->upper_fd, ws, &rep->files, &ao, &rep->apply, err)) < 0)
                                return r;
                        rep->have_apply = true;
                        apply_outcome(rep);
                }
        }
        rep->diff_ms = acs_now_ms() - t;
        return 0;
}

/* Python runs are scanned in the sandbox unless the profile turns the scan off. */
static bool run_scans(const acs_run_request *req)
{
        return req->kind != ACS_RUN_EXEC && req->profile->scan_mode != ACS_SCAN_OFF;
}

int acs_run_dry(const acs_run_request *req, FILE *out, bool json, acs_error *err)
{
        _cleanup_(acs_plan_done) acs_plan p = { 0 };
        _cleanup_(acs_host_facts_done) acs_host_facts facts = { 0 };
        int r;
        /* no scan channel exists: the bootstrap's fds are placeholders, printed as such */
        if ((r = acs_host_facts_gather(req, &facts, err)) < 0 ||
            (r = acs_plan_build(req, &facts, run_scans(req) ? (int[]){ -2, -2 } : (int[]){ -1, -1 }, &p, err)) < 0)
                return r;
        if (!json)
                r = acs_plan_print(out, req, &p, &facts);
        else {
                _cleanup_free_ char *s = acs_plan_to_json(req, &p, &facts);
                r = s && fprintf(out, "%s\n", s) >= 0 ? 0 : -ENOMEM;
        }
        if (r >= 0 && fflush(out) != 0)
                r = -errno;
        return r < 0 ? acs_error_errno(err, r, "io", "printing the plan") : 0;
}

static void ctx_init(acs_run_warm *c, const acs_run_request *req)
{
        *c = (acs_run_warm){
                .req = *req,
                .sb = { .pid = -1, .pidfd = -1, .sync_fd = -1, .upper_fd = -1, .lower_fd = -1 },
                .cg = ACS_CGROUP_NULL,
                .outp = { -1, -1 }, .errp = { -1, -1 }, .scanp = { -1, -1 },
                .sigfd = -1, .modfd = -1, .trace_fd = -1, .patch_fd = -1,
                .in = ACS_INPUT_NULL,
                .t0 = acs_now_ms(),
        };
}

/*
 * The first half: plan, channels, cgroup, sandbox. Returns 1 when the run
 * ended before a sandbox existed (refused by its size), 0 with the sandbox
 * started, < 0 on failure. A warm run's scan channel stays open: the policy
 * and the code go through it in the second half.
 */
static int run_begin(acs_run_warm *c, acs_error *err)
{
        const acs_run_request *req = &c->req;
        const acs_profile *prof = req->profile;
        acs_report *rep = &c->rep;
        acs_plan *p = &c->p;
        int r;

        *rep = (acs_report){ .status = ACS_STATUS_ERROR, .exit_code = 125 };
        rep->profile = strdup(prof->name ? prof->name : "");
        bool scan = run_scans(req);
        rep->scan.verdict = ACS_VERDICT_SKIPPED;

        if (scan) {
                if ((r = acs_scan_ext_open(err)) < 0)
                        return r;
                c->modfd = r;
                if ((r = open_scan_channel(c->scanp, err)) < 0)
                        return r;
        }
        if ((r = acs_host_facts_gather(req, &c->facts, err)) < 0)
                return r;
        if ((r = acs_plan_build(req, &c->facts, scan ? (int[]){ c->scanp[1], c->modfd } : (int[]){ -1, -1 }, p, err)) < 0) {
                if (r == -EFBIG && prof->scan_mode == ACS_SCAN_ENFORCE && req->kind == ACS_RUN_FILE &&
                    refuse_too_large(rep, prof, p->file_size) == 0)
                        return 1; /* refused like any other finding, before a sandbox exists */
                return r;
        }
        rep->scan_bypass = TAKE_PTR(p->bypass);
        /* opened before the run: a refused target costs no run */
        if (req->opts && req->opts->patch && strcmp(req->opts->patch, "-") != 0 &&
            (r = c->patch_fd = acs_open_output(req->opts->patch, err)) < 0)
                return r;
        if (req->opts && req->opts->keep && (r = acs_keep_check(req->opts->keep, err)) < 0)
                return r;
        if (scan && !req->warm && (r = send_scan_policy(c->scanp[0], prof, p, err)) < 0)
                return r;
        acs_run_fill_limits(rep, p);
        c->shield = acs_shield_new(p->max_tokens, prof->ansi == ACS_ANSI_STRIP);
        if (!c->shield)
                return acs_error_set(err, -ENOMEM, "io", "out of memory");
        /* -v: the sandbox's setup traces go to our own stderr, never to the
         * program's stderr pipe that its stdio becomes (and the report holds) */
        if (p->cfg.verbose)
                p->cfg.trace_fd = c->trace_fd = fcntl(STDERR_FILENO, F_DUPFD_CLOEXEC, 3);
        if ((r = open_pipe(c->outp, err)) < 0 || (r = open_pipe(c->errp, err)) < 0)
                return r;
        if ((r = acs_input_open(req->stdin_fd, req->stdin_mode, &c->in, err)) < 0)
                return r;
        p->cfg.stdin_fd = c->in.prog_fd;
        p->cfg.stdout_fd = c->outp[1];
        p->cfg.stderr_fd = c->errp[1];

        /* Signals that end the run arrive on a signalfd; the sandbox gets
         * the original mask back before exec. */
        sigset_t mask;
        sigemptyset(&mask);
        sigaddset(&mask, SIGTERM);
        sigaddset(&mask, SIGINT);
        sigaddset(&mask, SIGHUP);
        sigprocmask(SIG_BLOCK, &mask, &c->old);
        c->masked = true;
        c->sigfd = signalfd(-1, &mask, SFD_CLOEXEC | SFD_NONBLOCK);

        clock_gettime(CLOCK_REALTIME, &c->run_start);
        /* -v: every step's time counts from the start of the run */
        p->cfg.t0_ms = c->t0;
        c->t_spawn = acs_now_ms();
        if (p->cfg.verbose)
                acs_trace_to(STDERR_FILENO, c->t0, "plan ready (profile %s)", prof->name);
        if (p->cfg.rl_as || p->cfg.rl_nproc || p->cfg.rl_cpu) {
                const char *why = NULL;
                if (acs_cgroup_create(p->cfg.rl_as, p->cfg.rl_nproc, &c->cg, &why) > 0) {
                        p->cfg.cgroup_fd = c->cg.dir_fd;
                        p->cfg.mem_cgroup = c->cg.memory;
                }
                if (p->cfg.verbose)
                        acs_trace_to(STDERR_FILENO, c->t0, "cgroup: %s%s%s%s",
                                     c->cg.dir_fd >= 0 ? c->cg.path : "none, rlimits only: ",
                                     c->cg.dir_fd >= 0 ? "" : why, c->cg.memory ? " (memory.max)" : "",
                                     c->cg.pids ? " (pids.max)" : "");
        }
        r = acs_sandbox_spawn(&p->cfg, &c->sb, err);
        if (r >= 0)
                acs_run_fill_confinement(rep, &c->sb, &c->cg);
        if (r < 0 || !c->sb.in_cgroup)
                acs_cgroup_destroy(&c->cg);
        closep(&c->outp[1]);
        closep(&c->errp[1]);
        closep(&c->scanp[1]);
        closep(&c->modfd);
        c->outp[1] = c->errp[1] = c->scanp[1] = c->modfd = -1;
        acs_input_spawned(&c->in);
        return r < 0 ? r : 0;
}

/* The second half: supervise the sandbox to its end, classify, clip, diff. */
static int run_finish(acs_run_warm *c, acs_error *err)
{
        const acs_run_request *req = &c->req;
        const acs_profile *prof = req->profile;
        acs_report *rep = &c->rep;
        acs_plan *p = &c->p;
        acs_supervise_out so = { 0 };
        bool scan = run_scans(req);
        int r;

        acs_supervise_in si = { .sb = &c->sb, .out_fd = c->outp[0], .err_fd = c->errp[0], .scan_fd = c->scanp[0],
                                .signal_fd = c->sigfd, .cancel_fd = req->cancel_fd, .timeout_s = p->timeout,
                                .cpu_limit_us = (int64_t)p->cfg.rl_cpu * 1000000,
                                .cgroup_fd = c->sb.in_cgroup ? c->cg.dir_fd : -1,
                                .stream = req->stream, .shield = c->shield, .t_spawn = c->t_spawn,
                                .trace_t0 = p->cfg.verbose ? c->t0 : 0, .input = &c->in,
                                .strip_ansi = prof->ansi == ACS_ANSI_STRIP,
                                .mark = { acs_same_file(STDOUT_FILENO, STDERR_FILENO) ? req->mark : NULL, req->mark } };
        r = acs_supervise(&si, &so, err);
        if (r < 0) {
                acs_sandbox_kill(&c->sb);
                goto out;
        }
        /* nothing of the sandbox runs any more (init, exiting, holds no fd
         * but the sync socket): give the caller's terminal back
         * before anything more is printed on it */
        acs_input_close(&c->in);
        classify(rep, &so);
        /* the kernel's OOM killer in the run's cgroup: a memory-limit kill */
        if (rep->status == ACS_STATUS_SIGNALED && rep->signal == SIGKILL && acs_cgroup_oom_kills(&c->cg) > 0)
                rep->status = ACS_STATUS_MEMORY;
        else if (rep->status != ACS_STATUS_TIMEOUT && cpu_limit_kill(rep, &so)) {
                rep->status = ACS_STATUS_CPU;
                if (!rep->signal) {
                        rep->signal = SIGKILL;
                        rep->exit_code = 128 + SIGKILL;
                }
        }
        bool verdict = false;
        if (so.scan_line) {
                acs_scan_result sr = { 0 };
                if (acs_scan_result_from_json(so.scan_line, &sr) >= 0) {
                        verdict = true;
                        acs_scan_result_done(&rep->scan);
                        rep->scan = sr;
                        rep->scan_ms = sr.ms;
                        if (sr.verdict == ACS_VERDICT_REJECT && rep->status == ACS_STATUS_EXITED &&
                            rep->exit_code == 126) {
                                rep->status = ACS_STATUS_REJECTED;
                        }
                }
        }
        /* The scanner reports before any of the program runs: an ordinary
         * exit without a verdict is the interpreter failing before or in the
         * scan (bad flags, another Python, a broken module), never the
         * program's status. A timeout or a signal keeps its own status. */
        if (scan && !verdict && rep->status == ACS_STATUS_EXITED) {
                rep->status = ACS_STATUS_ERROR;
                free(rep->error);
                rep->error = NULL;
                if (asprintf(&rep->error, "the scan in the sandbox gave no verdict: %s exited with status %d before "
                             "scanning (its stderr says why)", p->argv[0], rep->exit_code) < 0)
                        rep->error = NULL;
                rep->exit_code = 125;
        }
        acs_shield_finish(c->shield, &rep->out, &rep->err);
        if ((r = acs_run_finish_workspace(req, &c->sb, &c->run_start, c->patch_fd, rep, err)) < 0)
                goto out;
        if (p->cfg.verbose)
                acs_trace_to(STDERR_FILENO, c->t0, "output clipped, workspace diffed (%.3f ms)",
                             rep->diff_ms);
        rep->setup_ms = so.setup_ms;
        rep->run_ms = so.run_ms;
        rep->user_ms = (double)so.ru.ru_utime.tv_sec * 1e3 + (double)so.ru.ru_utime.tv_usec / 1e3;
        rep->sys_ms = (double)so.ru.ru_stime.tv_sec * 1e3 + (double)so.ru.ru_stime.tv_usec / 1e3;
        rep->max_rss_kb = so.ru.ru_maxrss;
        if (req->stream)
                acs_pass_epilogue(c->shield, si.mark);
        if (so.launcher_signal)
                rep->signal = so.launcher_signal;
        r = 0;
out:
        free(so.scan_line);
        return r;
}

/* Whatever happened: the report's error and wall time. */
static void run_report(acs_run_warm *c, int r, acs_error *err)
{
        acs_report *rep = &c->rep;

        if (c->reported)
                return;
        c->reported = true;
        /* a terminating signal that arrived now still counts (the caller re-raises it) */
        if (c->masked)
                sigprocmask(SIG_SETMASK, &c->old, NULL);
        c->masked = false;
        acs_pass_flush(c->req.mark, STDERR_FILENO); /* a partial line the mark still held */
        rep->wall_ms = acs_now_ms() - c->t0;
        if (r < 0) {
                rep->status = ACS_STATUS_ERROR;
                rep->exit_code = err && err->exit_status ? err->exit_status : 125;
                free(rep->error);
                rep->error = strdup(err && err->msg[0] ? err->msg : strerror(-r));
        }
}

/* Then nothing of the run is left: init reaped (its exit, which tears the
 * sandbox's mounts down, may still run when the report is made: see
 * sync-proto.h), the cgroup removed, every fd closed. */
static void run_release(acs_run_warm *c)
{
        if (c->ended)
                return;
        c->ended = true;
        bool had_init = c->sb.pid > 0;
        acs_sandbox_kill(&c->sb);
        acs_sandbox_close(&c->sb);
        if (had_init && c->p.cfg.verbose)
                acs_trace_to(STDERR_FILENO, c->t0, "init gone: nothing of the sandbox is left");
        acs_input_close(&c->in); /* after init is reaped: the program cannot change it any more */
        acs_cgroup_destroy(&c->cg); /* after init is reaped: nothing is left in it */
        acs_shield_free(c->shield);
        c->shield = NULL;
        close_pair(c->outp);
        close_pair(c->errp);
        close_pair(c->scanp);
        closep(&c->modfd);
        closep(&c->sigfd);
        closep(&c->trace_fd);
        closep(&c->patch_fd);
        c->modfd = c->sigfd = c->trace_fd = c->patch_fd = -1;
        acs_plan_done(&c->p);
        acs_host_facts_done(&c->facts);
}

static void run_end(acs_run_warm *c, int r, acs_error *err)
{
        run_report(c, r, err);
        run_release(c);
}

/* A run's whole sequence; the sandbox and everything of it go with c
 * (run_release: its order is the teardown's, and it never touches the
 * report, which the caller owns). */
int acs_run(const acs_run_request *req, acs_report *rep, acs_error *err)
{
        _cleanup_(run_release) acs_run_warm c;

        ctx_init(&c, req);
        int r = run_begin(&c, err);
        if (r == 0)
                r = run_finish(&c, err);
        else if (r > 0)
                r = 0;
        run_report(&c, r, err);
        *rep = c.rep;
        return r;
}

/*
 * A pooled interpreter (acs_scan_boot_warm) gets its policy as soon as it
 * exists -- u32 length, the policy -- and readies its scan with it while
 * no call is there; a call is then 'C', the code, EOF. EOF instead of
 * 'C': no call comes.
 */
static int send_warm_policy(int fd, const acs_profile *prof, acs_error *err)
{
        _cleanup_free_ char *pol = NULL;
        size_t plen = 0;
        int r;
        if ((r = acs_scan_policy_pack(prof, "<string>", true, &pol, &plen)) < 0)
                return acs_error_set(err, r, "scan", r == -E2BIG ? "the profile's [scan] lists are too long (over %d KiB)"
                                                                 : "out of memory", ACS_SCAN_POLICY_MAX / 1024);
        uint32_t n = (uint32_t)plen;
        if ((r = acs_write_all(fd, &n, sizeof n)) < 0 || (r = acs_write_all(fd, pol, plen)) < 0)
                return acs_error_errno(err, r, "scan", "passing the policy to the pooled sandbox");
        return 0;
}

static int send_warm_call(int fd, const char *code, size_t len, acs_error *err)
{
        int r;
        if ((r = acs_write_all(fd, "C", 1)) < 0 || (r = acs_write_all(fd, code, len)) < 0)
                return acs_error_errno(err, r, "scan", "handing the code to the pooled sandbox");
        if (shutdown(fd, SHUT_WR) < 0)
                return acs_error_errno(err, -errno, "scan", "shutdown");
        fcntl(fd, F_SETFL, O_NONBLOCK);
        return 0;
}

int acs_run_warm_start(const acs_run_request *req, acs_run_warm **ret, acs_error *err)
{
        acs_run_warm *c = malloc(sizeof *c);
        if (!c)
                return acs_error_set(err, -ENOMEM, "pool", "out of memory");
        acs_run_request wr = *req;
        wr.warm = true;
        wr.code = NULL;
        wr.code_len = 0;
        ctx_init(c, &wr);
        int r = run_begin(c, err);
        if (r == 0 && !wr.session && run_scans(&wr))
                r = send_warm_policy(c->scanp[0], wr.profile, err);
        if (r != 0) {
                run_end(c, r < 0 ? r : -EINVAL, err);
                acs_report_done(&c->rep);
                free(c);
                return r < 0 ? r : acs_error_set(err, -EINVAL, "pool", "nothing to start");
        }
        *ret = c;
        return 0;
}

int acs_run_warm_pidfd(const acs_run_warm *w)
{
        return w->sb.pidfd;
}

int acs_run_warm_finish(acs_run_warm *w, const char *code, size_t len, double timeout_s, int cancel_fd,
                        acs_report *rep, acs_error *err)
{
        /* the call's own clock: the time the sandbox waited for it is not the call's */
        w->t0 = w->t_spawn = acs_now_ms();
        clock_gettime(CLOCK_REALTIME, &w->run_start);
        w->p.timeout = w->rep.limits.timeout_s = timeout_s; /* as fill_limits() would have */
        w->req.cancel_fd = cancel_fd;
        int r = send_warm_call(w->scanp[0], code, len, err);
        if (r >= 0)
                r = run_finish(w, err);
        /* the report is whole; acs_run_warm_free() reaps init after the
         * caller has sent it */
        run_report(w, r, err);
        *rep = w->rep;
        w->rep = (acs_report){ 0 };
        return r;
}

void acs_run_warm_free(acs_run_warm *w)
{
        if (!w)
                return;
        run_end(w, 0, NULL);
        acs_report_done(&w->rep);
        free(w);
}

int acs_report_exit_status(const acs_report *r)
{
        switch (r->status) {
        case ACS_STATUS_TIMEOUT: return 124;
        case ACS_STATUS_REJECTED: return 126;
        default: return r->exit_code;
        }
}
