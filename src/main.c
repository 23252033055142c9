/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The static acs-launch: the run path, linked from libacs-core.a, which
 * cannot dlopen. Its command table has what runs without libpython or
 * libmount; every other subcommand (check, mcp, serve, doctor, apply)
 * is exec'd as acs-launch-full with the same arguments (full.c). When
 * acs-launch is not static, it is main-full.c's binary instead.
 */
#include "bench.h"
#include "commands.h"
#include "full.h"

static const acs_command_entry commands[] = {
        { ACS_CMD_RUN, acs_cmd_run },
        { ACS_CMD_EXEC, acs_cmd_run },
        { ACS_CMD_PROFILES, acs_cmd_profiles },
        { ACS_CMD_BENCH, acs_cmd_bench },
        { ACS_CMD_HELP, acs_cmd_help },
        { ACS_CMD_VERSION, acs_cmd_version },
        { 0, NULL },
};

static int hand_over(const acs_options *o, char *argv[])
{
        acs_error err = { 0 };

        acs_exec_full(argv, &err);
        return acs_fail_before_run(o, &err);
}

int main(int argc, char *argv[])
{
        return acs_dispatch(argc, argv, commands, hand_over);
}
