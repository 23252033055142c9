/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The MCP server's policy: which profiles a client may name and how long a
 * call may ask to run. The operator sets it on the command line; the model
 * only chooses within it (issue: a client once passed "unsafe-python", or
 * "evil.ini" from the server's cwd, and turned the scan off).
 */
#include <string.h>

#include "diff.h"
#include "mcp-policy.h"

/*
 * The operator's --profile: a PATH (with '/' or ending in .ini) as on the
 * command line; a NAME by name only, so that a relative entry on the search
 * path cannot pick up a file from the server's cwd (often a cloned repository).
 */
static int load_server_profile(const char *ref, acs_profile **ret, acs_error *err)
{
        return acs_profile_name_valid(ref) ? acs_profile_load_name(ref, ret, err) : acs_profile_load(ref, ret, err);
}

/* The name and description (valid UTF-8: it goes into the inputSchema) of a profile a client may name. */
static int add_profile(acs_mcp_policy *pol, const acs_profile *p)
{
        const char *d = p->description ? p->description : "";
        _cleanup_free_ char *desc = acs_escape_bytes(d, strlen(d), NULL);
        int r;

        if (!desc)
                return -ENOMEM;
        r = acs_strv_push(&pol->profiles, p->name);
        return r < 0 ? r : acs_strv_push(&pol->descriptions, desc);
}

/* Each --allow-profile NAME, loaded by name; the --profile's own name is already in. */
static int add_allowed(const acs_options *o, acs_mcp_policy *pol, acs_error *err)
{
        for (char **a = o->allow_profiles; a && *a; a++) {
                _cleanup_profile_ acs_profile *p = NULL;
                int r;

                if (strcmp(*a, pol->profiles[0]) == 0) {
                        if (strcmp(pol->default_ref, *a) == 0)
                                continue; /* --profile NAME --allow-profile NAME */
                        return acs_error_set(err, -EINVAL, "usage",
                                             "--allow-profile %s: the --profile %s has that name; "
                                             "a client's name must mean one profile",
                                             *a, pol->default_ref);
                }
                if (acs_mcp_policy_allows(pol, *a))
                        continue;
                if ((r = acs_profile_load_name(*a, &p, err)) < 0) {
                        char msg[sizeof(err->msg)];

                        snprintf(msg, sizeof(msg), "%s", err->msg);
                        return acs_error_set(err, r, "usage", "--allow-profile %s: %s", *a, msg);
                }
                if ((r = add_profile(pol, p)) < 0)
                        return acs_error_set(err, r, "usage", "out of memory");
        }
        return 0;
}

int acs_mcp_policy_load(const acs_options *o, acs_mcp_policy *ret, acs_error *err)
{
        acs_mcp_policy pol = { .default_ref = o->profile ? o->profile : "default" };
        _cleanup_profile_ acs_profile *def = NULL;
        double own;
        int r;

        if ((r = load_server_profile(pol.default_ref, &def, err)) < 0)
                return r;
        if ((r = add_profile(&pol, def)) < 0 || (r = add_allowed(o, &pol, err)) < 0)
                goto fail;

        own = o->has_timeout ? o->timeout : def->timeout;
        if (o->max_timeout > 0) {
                if (o->has_timeout && o->timeout > o->max_timeout) {
                        r = acs_error_set(err, -EINVAL, "usage",
                                          "--timeout %g is over --max-timeout %g: the server's own default "
                                          "must be one a client could ask for", o->timeout, o->max_timeout);
                        goto fail;
                }
                pol.max_timeout = o->max_timeout;
        } else
                pol.max_timeout = own > ACS_MCP_DEFAULT_MAX_TIMEOUT ? own : ACS_MCP_DEFAULT_MAX_TIMEOUT;
        *ret = pol;
        return 0;
fail:
        if (r == -ENOMEM)
                acs_error_set(err, r, "usage", "out of memory");
        acs_mcp_policy_done(&pol);
        return r;
}

int acs_mcp_call_profile(const acs_mcp_policy *pol, const acs_mcp_call *c, acs_profile **ret,
                         double *ret_timeout_cap, acs_error *err)
{
        _cleanup_profile_ acs_profile *p = NULL;
        double cap = pol->max_timeout;
        int r;

        if (c->tool == ACS_TOOL_COMMAND && (!c->profile || strcmp(c->profile, "shell") == 0))
                r = acs_profile_load_name("shell", &p, err);
        else if (!c->profile || strcmp(c->profile, pol->profiles[0]) == 0)
                r = load_server_profile(pol->default_ref, &p, err);
        else if (acs_mcp_policy_allows(pol, c->profile))
                r = acs_profile_load_name(c->profile, &p, err);
        else
                r = acs_error_set(err, -EACCES, "profile", "profile '%.64s' is not allowed on this server", c->profile);
        if (r < 0)
                return r;
        /* A profile that locks its timeout cannot be given a longer one (run.c refuses it). */
        if (p->timeout > 0 && p->timeout < cap && acs_profile_is_locked(p, "timeout"))
                cap = p->timeout;
        *ret_timeout_cap = cap;
        *ret = TAKE_PTR(p);
        return 0;
}
