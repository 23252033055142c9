/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The MCP server's policy from its options, and the profile a call runs under. */
#pragma once

#include "cli.h"
#include "mcp-tools.h"
#include "profile.h"

/* A call's timeout is capped at the larger of this and the server's own default timeout. */
#define ACS_MCP_DEFAULT_MAX_TIMEOUT 60.0

/*
 * Build the policy from --profile, --allow-profile and --max-timeout,
 * loading each profile once so that a typo fails at start (exit 125) rather
 * than at every call. --max-timeout defaults to the larger of 60 s and the
 * server's own default timeout (--timeout, else the --profile's).
 */
int acs_mcp_policy_load(const acs_options *o, acs_mcp_policy *ret, acs_error *err);

/*
 * The profile a call runs under: `shell` for execute_command; the server's
 * --profile when the call names none or names it; otherwise the allowed
 * name, loaded by name only (acs_profile_load_name). A name the policy does
 * not allow is refused here too, whatever the caller checked before.
 * *ret_timeout_cap: the most a "timeout" may ask for under that profile.
 */
int acs_mcp_call_profile(const acs_mcp_policy *pol, const acs_mcp_call *c, acs_profile **ret,
                         double *ret_timeout_cap, acs_error *err);
