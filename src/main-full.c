/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * acs-launch-full (or the one acs-launch when it is not static): every
 * command, with what dlopens libpython (check, MCP) and libmount (doctor).
 */
#include <stdio.h>

#include "bench.h"
#include "commands.h"
#include "diff.h"
#include "doctor.h"
#include "full.h"
#include "mcp.h"
#include "mcp-http.h"
#include "scan.h"

static int cmd_doctor(const acs_options *o)
{
        return acs_doctor(stdout);
}

static int cmd_mcp(const acs_options *o)
{
        return o->http ? acs_mcp_http_main(o) : acs_mcp_main(o);
}

static int cmd_serve(const acs_options *o)
{
        return acs_serve_main(o);
}

static const acs_command_entry commands[] = {
        { ACS_CMD_RUN, acs_cmd_run },
        { ACS_CMD_EXEC, acs_cmd_run },
        { ACS_CMD_CHECK, acs_cmd_check },
        { ACS_CMD_MCP, cmd_mcp },
        { ACS_CMD_SERVE, cmd_serve },
        { ACS_CMD_PROFILES, acs_cmd_profiles },
        { ACS_CMD_DOCTOR, cmd_doctor },
        { ACS_CMD_APPLY, acs_cmd_apply },
        { ACS_CMD_BENCH, acs_cmd_bench },
        { ACS_CMD_HELP, acs_cmd_help },
        { ACS_CMD_VERSION, acs_cmd_version },
        { 0, NULL },
};

int main(int argc, char *argv[])
{
        return acs_dispatch(argc, argv, commands, NULL);
}
