/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * One command table per binary. main.c is the static acs-launch's (the run
 * path, linked from libacs-core.a only); main-full.c is acs-launch-full's
 * (or the one acs-launch's when it is not static), which adds what needs
 * dlopen (libacs.a). acs_dispatch runs argv through a table.
 */
#pragma once

#include "cli.h"
#include "outmark.h"

typedef struct acs_command_entry {
        acs_command command;
        int (*run)(const acs_options *o);
} acs_command_entry;

/* What to do with a command the table lacks (argv as given); its status. */
typedef int (*acs_command_other)(const acs_options *o, char *argv[]);

/*
 * Parse argv (a usage error: the message, with --json one error report,
 * 125) and run the entry of table (ended by { 0, NULL }) for the command,
 * else other (NULL: 125). Returns the process's exit status.
 */
int acs_dispatch(int argc, char *argv[], const acs_command_entry *table, acs_command_other other);

/* the commands of every binary */
int acs_cmd_run(const acs_options *o);      /* run and exec (cmd-run.c) */
struct acs_profile;
struct acs_report;
/* After a run: what the CLI prints (summary or --json report, --report FILE); the exit status.
 * The same for a cold run and one a server ran for the CLI (serve-cli.c). Frees rep's members. */
int acs_cmd_run_finish(const acs_options *o, const struct acs_profile *prof, acs_outmark *mark,
                       struct acs_report *rep, int r, const acs_error *err, int report_fd);
int acs_cmd_profiles(const acs_options *o); /* cmd-profiles.c */
int acs_cmd_help(const acs_options *o);
int acs_cmd_version(const acs_options *o);

/* A line of ours on stderr (see dispatch.c): "acs-launch: " and the text,
 * control characters escaped; mark: the program's output so far, if any. */
void acs_say_line(acs_outmark *mark, const char *line, size_t n);
void acs_say(acs_outmark *mark, const char *fmt, ...) _printf_(2, 3);
void acs_print_error(const acs_error *err);
/* A failure before a run: its message and, with --json, one error report. Returns 125. */
int acs_fail_before_run(const acs_options *o, const acs_error *err);
