/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Dispatch and exit status: the only place the process ends. */
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "diff.h"
#include "doctor.h"
#include "full.h"
#include "bench.h"
#include "mcp.h"
#include "mcp-http.h"
#include "outmark.h"
#include "profile.h"
#include "profile-show.h"
#include "run.h"
#include "scan.h"

static const char *default_profile(const acs_options *o)
{
        if (o->profile)
                return o->profile;
        return o->command == ACS_CMD_EXEC ? "shell" : "default";
}

/*
 * Our own words on stderr: every line starts with "acs-launch: " and starts a
 * line (after the program's output, a newline first if it ended mid-line),
 * and no control character of a message gets through raw, so that nothing
 * in a message (a path, a finding from the source) can start a line of its
 * own. The program's side of the rule is in outmark.h.
 */
static void say_line(acs_outmark *mark, const char *line, size_t n)
{
        if (mark && !acs_outmark_at_line_start(mark)) {
                fputc('\n', stderr);
                *mark = ACS_OUTMARK_INIT;
        }
        fputs("acs-launch: ", stderr);
        for (size_t i = 0; i < n; i++) {
                unsigned char c = (unsigned char)line[i];
                if (c < 0x20 || c == 0x7f)
                        fprintf(stderr, "\\x%02x", c);
                else
                        fputc(c, stderr);
        }
        fputc('\n', stderr);
}

static void say(acs_outmark *mark, const char *fmt, ...) _printf_(2, 3);
static void say(acs_outmark *mark, const char *fmt, ...)
{
        _cleanup_free_ char *text = NULL;
        va_list ap;
        va_start(ap, fmt);
        int n = vasprintf(&text, fmt, ap);
        va_end(ap);
        if (n >= 0)
                say_line(mark, text, (size_t)n);
}

/* A block printed by another module (change list, apply list), one line of ours per line. */
static void say_block(acs_outmark *mark, const char *text, size_t len)
{
        while (len > 0) {
                const char *nl = memchr(text, '\n', len);
                size_t n = nl ? (size_t)(nl - text) : len;
                say_line(mark, text, n);
                text += nl ? n + 1 : n;
                len -= nl ? n + 1 : n;
        }
}

#define SAY_PRINTED(mark, call)                                                                  \
        do {                                                                                     \
                _cleanup_free_ char *_buf = NULL;                                                \
                size_t _len = 0;                                                                 \
                FILE *_f = open_memstream(&_buf, &_len);                                         \
                if (_f) {                                                                        \
                        call;                                                                    \
                        if (fclose(_f) == 0)                                                     \
                                say_block(mark, _buf, _len);                                     \
                }                                                                                \
        } while (0)

static void print_error(const acs_error *err)
{
        say(NULL, "%s", err->msg[0] ? err->msg : strerror(-err->code));
}

/* With --json, a failure before the run (usage, profile, output file) is still one report. */
static void print_error_report(const char *msg)
{
        _cleanup_free_ char *json = acs_report_error_string(msg, 125);
        if (json)
                puts(json);
        fflush(stdout);
}

static int fail_before_run(const acs_options *o, const acs_error *err)
{
        print_error(err);
        if (o->json)
                print_error_report(err->msg[0] ? err->msg : strerror(-err->code));
        return 125;
}

static int write_report_fd(int fd, const char *json)
{
        int r = acs_write_all(fd, json, strlen(json));
        return r < 0 ? r : acs_write_all(fd, "\n", 1);
}

static void print_findings(acs_outmark *mark, const acs_options *o, const acs_report *rep)
{
        for (size_t i = 0; i < rep->scan.n_findings; i++) {
                const acs_finding *f = &rep->scan.findings[i];
                say(mark, "%s:%d:%d: %s: %s", o->code ? "<string>" : o->args[0], f->line, f->col, f->rule,
                    f->message);
        }
}

/* The human summary after a run, on stderr (not with --json). */
static void print_summary(acs_outmark *mark, const acs_options *o, const acs_profile *prof, const acs_report *rep,
                          const acs_error *err)
{
        if (err)
                say(mark, "%s", err->msg[0] ? err->msg : strerror(-err->code));
        else if (rep->status == ACS_STATUS_ERROR && rep->error)
                say(mark, "%s", rep->error);
        if (rep->status == ACS_STATUS_TIMEOUT)
                say(mark, "timed out after %g s", rep->limits.timeout_s);
        for (char **v = rep->scan_bypass; v && *v; v++)
                say(mark, "warning: %s was passed (profile %s, [env] allow_loader): it can run code before the "
                    "scan, whose verdict does not cover that code", *v, prof->name);
        bool warned = rep->scan.verdict == ACS_VERDICT_WARN && !o->quiet;
        if (warned)
                say(mark, "the scan found %zu issue%s; profile %s has mode = warn, so the program ran:",
                    rep->scan.n_findings, rep->scan.n_findings == 1 ? "" : "s", prof->name);
        if (rep->status == ACS_STATUS_REJECTED || warned)
                print_findings(mark, o, rep);
        if (!o->quiet && rep->have_files && (acs_changes_count(&rep->files) > 0 || rep->files.truncated))
                SAY_PRINTED(mark, acs_changes_print_short(_f, &rep->files));
        if (o->patch && rep->have_files && rep->files.patch_omitted)
                say(mark, "no patch written: %s",
                    rep->files.truncated ? "the list of changes is truncated"
                                         : "over 4 MiB, or a file it needs is unreadable or too big");
        if (!o->quiet && rep->have_apply)
                SAY_PRINTED(mark, acs_apply_result_print(_f, &rep->apply));
        if (rep->apply_skipped)
                say(mark, "changes not applied: %s",
                    rep->files.truncated ? "the list of changes is truncated" : "the run did not succeed");
}

static int cmd_run(const acs_options *o)
{
        acs_error err = { 0 };
        _cleanup_profile_ acs_profile *prof = NULL;
        _cleanup_close_ int report_fd = -1;
        acs_outmark mark = ACS_OUTMARK_INIT;
        acs_report rep = { 0 };
        int r, status;

        /* a profile or a --report target that is refused costs no run */
        if (acs_profile_load(default_profile(o), &prof, &err) < 0 ||
            (!o->dry_run && o->report && (report_fd = acs_open_output(o->report, &err)) < 0))
                return fail_before_run(o, &err);
        acs_run_request req = {
                .kind = o->command == ACS_CMD_EXEC ? ACS_RUN_EXEC : o->code ? ACS_RUN_CODE : ACS_RUN_FILE,
                .profile = prof,
                .opts = o,
                .argv = o->args,
                .code = o->code,
                .code_len = o->code ? strlen(o->code) : 0,
                /* --json alone: /dev/null, as documented before --stdin existed */
                .stdin_fd = 0,
                .stdin_mode = o->json && o->stdin_mode == ACS_STDIN_AUTO ? ACS_STDIN_NULL : o->stdin_mode,
                .stream = !o->json,
                .cancel_fd = -1,
                .mark = o->json ? NULL : &mark,
        };
        if (o->dry_run)
                return acs_run_dry(&req, stdout, o->json, &err) < 0 ? fail_before_run(o, &err) : 0;
        r = acs_run(&req, &rep, &err);
        status = acs_report_exit_status(&rep);
        if (!o->json)
                print_summary(&mark, o, prof, &rep, r < 0 ? &err : NULL);
        if (o->json || report_fd >= 0) {
                _cleanup_free_ char *json = acs_report_to_string(&rep, false);
                if (json && o->json)
                        puts(json);
                if (json && report_fd >= 0 && (r = write_report_fd(report_fd, json)) < 0)
                        say(o->json ? NULL : &mark, "cannot write report %s: %s", o->report, strerror(-r));
        }
        acs_report_done(&rep);
        fflush(stdout);
        return status;
}

static int cmd_version(void)
{
        printf("acs-launch %s\n", PACKAGE_VERSION);
        return 0;
}

int main(int argc, char *argv[])
{
        acs_options o = { 0 };
        acs_error err = { 0 };
        int status;

        /* internal: acs-launch-full making the patch for the static acs-launch */
        if (!acs_static_launcher && argc >= 2 && strcmp(argv[1], "__patch") == 0)
                return acs_patch_helper_main(argc, argv);
        /* A closed stdout must not kill the launcher mid-run. */
        signal(SIGPIPE, SIG_IGN);
        /* ours is 022; the caller's filters the modes of what apply creates */
        const mode_t caller_umask = umask(022);
        if (acs_cli_parse(argc, argv, &o, &err) < 0) {
                print_error(&err);
                if (acs_cli_json_requested(argc, argv))
                        print_error_report(err.msg);
                return 125;
        }
        o.umask = caller_umask;
        /* The static acs-launch cannot dlopen: libpython (check, mcp), libmount
         * (doctor) and a long-lived server's libgit2 live in acs-launch-full. */
        if (acs_static_launcher && (o.command == ACS_CMD_CHECK || o.command == ACS_CMD_MCP || o.command == ACS_CMD_SERVE ||
                                    o.command == ACS_CMD_DOCTOR || o.command == ACS_CMD_APPLY)) {
                umask(caller_umask);
                acs_exec_full(argv, &err);
                status = fail_before_run(&o, &err);
                acs_options_done(&o);
                return status;
        }
        acs_log_level = o.quiet ? 0 : 1 + o.verbose;

        switch (o.command) {
        case ACS_CMD_HELP:
                acs_cli_usage(stdout, o.help_topic);
                status = 0;
                break;
        case ACS_CMD_VERSION:
                status = cmd_version();
                break;
        case ACS_CMD_RUN:
        case ACS_CMD_EXEC:
                status = cmd_run(&o);
                break;
        case ACS_CMD_CHECK:
                status = acs_cmd_check(&o);
                break;
        case ACS_CMD_MCP:
                status = o.http ? acs_mcp_http_main(&o) : acs_mcp_main(&o);
                break;
        case ACS_CMD_SERVE:
                status = acs_serve_main(&o);
                break;
        case ACS_CMD_PROFILES:
                if (o.show)
                        status = acs_profile_show(stdout, o.show, o.json, &err) < 0 ? (print_error(&err), 125) : 0;
                else if (o.json) {
                        acs_error_set(&err, -EINVAL, "usage", "profiles: --json goes with --show NAME");
                        print_error(&err);
                        status = 125;
                } else
                        status = acs_profile_list(stdout, &err) < 0 ? (print_error(&err), 125) : 0;
                break;
        case ACS_CMD_DOCTOR:
                status = acs_doctor(stdout);
                break;
        case ACS_CMD_APPLY:
                status = acs_cmd_apply(&o);
                break;
        case ACS_CMD_BENCH:
                status = acs_cmd_bench(&o);
                break;
        default:
                status = 125;
        }
        acs_options_done(&o);
        return status;
}
