/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* `acs-launch [run] SCRIPT|-c CODE` and `acs-launch exec COMMAND`: one run, its summary, its report. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "cli-server.h"
#include "commands.h"
#include "diff.h"
#include "outmark.h"
#include "profile.h"
#include "run.h"

static const char *default_profile(const acs_options *o)
{
        if (o->profile)
                return o->profile;
        return o->command == ACS_CMD_EXEC ? "shell" : "default";
}

/* A block printed by another module (change list, apply list), one line of ours per line. */
static void say_block(acs_outmark *mark, const char *text, size_t len)
{
        while (len > 0) {
                const char *nl = memchr(text, '\n', len);
                size_t n = nl ? (size_t)(nl - text) : len;
                acs_say_line(mark, text, n);
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

static int write_report_fd(int fd, const char *json)
{
        int r = acs_write_all(fd, json, strlen(json));
        return r < 0 ? r : acs_write_all(fd, "\n", 1);
}

static void print_findings(acs_outmark *mark, const acs_options *o, const acs_report *rep)
{
        for (size_t i = 0; i < rep->scan.n_findings; i++) {
                const acs_finding *f = &rep->scan.findings[i];
                acs_say(mark, "%s:%d:%d: %s: %s", o->code ? "<string>" : o->args[0], f->line, f->col, f->rule,
                    f->message);
        }
}

/* The human summary after a run, on stderr (not with --json). */
static void print_summary(acs_outmark *mark, const acs_options *o, const acs_profile *prof, const acs_report *rep,
                          const acs_error *err, int r)
{
        if (err)
                acs_say(mark, "%s", acs_error_text(err, r));
        else if (rep->status == ACS_STATUS_ERROR && rep->error)
                acs_say(mark, "%s", rep->error);
        if (rep->status == ACS_STATUS_TIMEOUT)
                acs_say(mark, "timed out after %g s", rep->limits.timeout_s);
        for (char **v = rep->scan_bypass; v && *v; v++)
                acs_say(mark, "warning: %s was passed (profile %s, [env] allow_loader): it can run code before the "
                    "scan, whose verdict does not cover that code", *v, prof->name);
        bool warned = rep->scan.verdict == ACS_VERDICT_WARN && !o->quiet;
        if (warned)
                acs_say(mark, "the scan found %zu issue%s; profile %s has mode = warn, so the program ran:",
                    rep->scan.n_findings, rep->scan.n_findings == 1 ? "" : "s", prof->name);
        if (rep->status == ACS_STATUS_REJECTED || warned)
                print_findings(mark, o, rep);
        if (!o->quiet && rep->have_files && (acs_changes_count(&rep->files) > 0 || rep->files.truncated))
                SAY_PRINTED(mark, acs_changes_print_short(_f, &rep->files));
        if (o->patch && rep->have_files && rep->files.patch_omitted)
                acs_say(mark, "no patch written: %s",
                    rep->files.truncated ? "the list of changes is truncated"
                                         : "over 4 MiB, or a file it needs is unreadable or too big");
        if (!o->quiet && rep->have_apply)
                SAY_PRINTED(mark, acs_apply_result_print(_f, &rep->apply));
        if (rep->apply_skipped)
                acs_say(mark, "changes not applied: %s",
                    rep->files.truncated ? "the list of changes is truncated" : "the run did not succeed");
}

int acs_cmd_run(const acs_options *o)
{
        acs_error err = { 0 };
        _cleanup_profile_ acs_profile *prof = NULL;
        _cleanup_close_ int report_fd = -1;
        acs_outmark mark = ACS_OUTMARK_INIT;
        acs_report rep = { 0 };
        int r, status = 0;

        /* a profile or a --report target that is refused costs no run */
        if (acs_profile_load(default_profile(o), &prof, &err) < 0 ||
            (!o->dry_run && o->report && (report_fd = acs_open_output(o->report, &err)) < 0))
                return acs_fail_before_run(o, &err);
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
                return acs_run_dry(&req, stdout, o->json, &err) < 0 ? acs_fail_before_run(o, &err) : 0;
        /* --server: a ready sandbox of a running server, when it can run it exactly so (cli-server.h) */
        if ((r = acs_cli_server_run(o, prof, report_fd, &status, &err)) != 0)
                return r < 0 ? acs_fail_before_run(o, &err) : status;
        r = acs_run(&req, &rep, &err);
        return acs_cmd_run_finish(o, prof, &mark, &rep, r, &err, report_fd);
}

int acs_cmd_run_finish(const acs_options *o, const acs_profile *prof, acs_outmark *mark, acs_report *rep,
                       int r, const acs_error *err, int report_fd)
{
        int status = acs_report_exit_status(rep);
        if (!o->json)
                print_summary(mark, o, prof, rep, r < 0 ? err : NULL, r);
        if (o->json || report_fd >= 0) {
                _cleanup_free_ char *json = acs_report_to_string(rep, false);
                if (json && o->json)
                        puts(json);
                if (json && report_fd >= 0 && (r = write_report_fd(report_fd, json)) < 0)
                        acs_say(o->json ? NULL : mark, "cannot write report %s: %s", o->report, strerror(-r));
        }
        acs_report_done(rep);
        fflush(stdout);
        return status;
}
