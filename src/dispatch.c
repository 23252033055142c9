/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * argv -> one entry of a binary's command table (main.c, main-full.c) ->
 * exit status: the only place the process ends is its main(), with what
 * acs_dispatch returns.
 */
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "commands.h"
#include "prefault.h"
#include "report.h"

/*
 * Our own words on stderr: every line starts with "acs-launch: " and starts a
 * line (after the program's output, a newline first if it ended mid-line),
 * and no control character of a message gets through raw, so that nothing
 * in a message (a path, a finding from the source) can start a line of its
 * own. The program's side of the rule is in outmark.h.
 */
void acs_say_line(acs_outmark *mark, const char *line, size_t n)
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

void acs_say(acs_outmark *mark, const char *fmt, ...)
{
        _cleanup_free_ char *text = NULL;
        va_list ap;
        va_start(ap, fmt);
        int n = vasprintf(&text, fmt, ap);
        va_end(ap);
        if (n >= 0)
                acs_say_line(mark, text, (size_t)n);
}

void acs_print_error(const acs_error *err)
{
        acs_say(NULL, "%s", acs_error_text(err, 0));
}

/* With --json, a failure before the run (usage, profile, output file) is still one report. */
static void print_error_report(const char *msg)
{
        _cleanup_free_ char *json = acs_report_error_string(msg, 125);
        if (json)
                puts(json);
        fflush(stdout);
}

int acs_fail_before_run(const acs_options *o, const acs_error *err)
{
        acs_print_error(err);
        if (o->json)
                print_error_report(acs_error_text(err, 0));
        return 125;
}

int acs_cmd_version(const acs_options *o)
{
        printf("acs-launch %s\n", PACKAGE_VERSION);
        return 0;
}

int acs_cmd_help(const acs_options *o)
{
        acs_cli_usage(stdout, o->help_topic);
        return 0;
}

int acs_dispatch(int argc, char *argv[], const acs_command_entry *table, acs_command_other other)
{
        acs_options o = { 0 };
        acs_error err = { 0 };
        int status = 125;

        acs_prefault_start();
        /* A closed stdout must not kill the launcher mid-run. */
        signal(SIGPIPE, SIG_IGN);
        /* ours is 022; the caller's filters the modes of what apply creates */
        const mode_t caller_umask = umask(022);
        if (acs_cli_parse(argc, argv, &o, &err) < 0) {
                acs_print_error(&err);
                if (acs_cli_json_requested(argc, argv))
                        print_error_report(err.msg);
                return 125;
        }
        o.umask = caller_umask;
        const acs_command_entry *e = table;
        while (e->run && e->command != o.command)
                e++;
        if (e->run) {
                acs_log_level = o.quiet ? 0 : 1 + o.verbose;
                status = e->run(&o);
        } else if (other) {
                /* not this binary's: handed over as it came, with the caller's umask */
                umask(caller_umask);
                status = other(&o, argv);
        }
        acs_options_done(&o);
        return status;
}
