/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Dispatch and exit status: the only place the process ends. */
#include <signal.h>
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

static void print_error(const acs_error *err)
{
        fprintf(stderr, "acs-launch: %s\n", err->msg[0] ? err->msg : strerror(-err->code));
}

static int write_report_file(const char *path, const char *json)
{
        FILE *f = fopen(path, "we");
        if (!f)
                return -errno;
        fputs(json, f);
        fputc('\n', f);
        return fclose(f) == 0 ? 0 : -errno;
}

static int cmd_run(const acs_options *o)
{
        acs_error err = { 0 };
        _cleanup_profile_ acs_profile *prof = NULL;
        acs_report rep = { 0 };
        int r, status;

        if ((r = acs_profile_load(default_profile(o), &prof, &err)) < 0) {
                print_error(&err);
                return 125;
        }
        acs_run_request req = {
                .kind = o->command == ACS_CMD_EXEC ? ACS_RUN_EXEC : o->code ? ACS_RUN_CODE : ACS_RUN_FILE,
                .profile = prof,
                .opts = o,
                .argv = o->args,
                .code = o->code,
                .code_len = o->code ? strlen(o->code) : 0,
                .stdin_fd = o->json ? -1 : 0,
                .stream = !o->json,
                .cancel_fd = -1,
        };
        r = acs_run(&req, &rep, &err);
        status = acs_report_exit_status(&rep);
        if (r < 0 && !o->json)
                print_error(&err);
        else if (!o->json && rep.status == ACS_STATUS_ERROR && rep.error)
                fprintf(stderr, "acs-launch: %s\n", rep.error);
        if (!o->json && rep.status == ACS_STATUS_TIMEOUT)
                fprintf(stderr, "acs-launch: timed out after %g s\n", rep.limits.timeout_s);
        bool warned = rep.scan.verdict == ACS_VERDICT_WARN && !o->quiet;
        if (!o->json && warned)
                fprintf(stderr, "acs-launch: the scan found %zu issue%s; profile %s has mode = warn, so the program ran:\n",
                        rep.scan.n_findings, rep.scan.n_findings == 1 ? "" : "s", prof->name);
        if (!o->json && (rep.status == ACS_STATUS_REJECTED || warned))
                for (size_t i = 0; i < rep.scan.n_findings; i++) {
                        const acs_finding *f = &rep.scan.findings[i];
                        fprintf(stderr, "%s:%d:%d: %s: %s\n",
                                o->code ? "<string>" : o->args[0], f->line, f->col, f->rule, f->message);
                }
        if (!o->json && !o->quiet && rep.have_files && acs_changes_count(&rep.files) > 0)
                acs_changes_print_short(stderr, &rep.files);
        if (!o->json && rep.have_apply)
                acs_apply_result_print(stderr, &rep.apply);
        if (!o->json && rep.apply_skipped)
                fprintf(stderr, "acs-launch: changes not applied: the run did not succeed\n");
        if (o->json || o->report) {
                _cleanup_free_ char *json = acs_report_to_string(&rep, false);
                if (json && o->json)
                        puts(json);
                if (json && o->report && (r = write_report_file(o->report, json)) < 0)
                        fprintf(stderr, "acs-launch: cannot write report %s: %s\n", o->report, strerror(-r));
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
        umask(022);
        if (acs_cli_parse(argc, argv, &o, &err) < 0) {
                print_error(&err);
                return 125;
        }
        /* The static acs-launch cannot dlopen: libpython (check, mcp), libmount
         * (doctor) and a long-lived server's libgit2 live in acs-launch-full. */
        if (acs_static_launcher && (o.command == ACS_CMD_CHECK || o.command == ACS_CMD_MCP ||
                                    o.command == ACS_CMD_DOCTOR || o.command == ACS_CMD_APPLY)) {
                acs_exec_full(argv, &err);
                print_error(&err);
                return 125;
        }
        acs_log_level = o.quiet ? 0 : 1 + o.verbose;

        switch (o.command) {
        case ACS_CMD_HELP:
                acs_cli_usage(stdout);
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
                status = acs_mcp_main(&o);
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
