/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Only in the static acs-launch (no library holds it): what it hands to
 * acs-launch-full. A static program must never dlopen (it would load a
 * second C library), and this binary is linked from libacs-core.a, which
 * holds no dlopen at all (tests/integration/split.sh checks nm). So the
 * subcommands its command table lacks (check, mcp, doctor, apply: main.c)
 * are exec'd as acs-launch-full with the same arguments, after the command
 * line was parsed and before anything else is done.
 */
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "full.h"

#define HELPER_NAME "acs-launch-full"

/* Next to this binary (the build tree, a test's staged copy), else pkglibexecdir. */
static int full_path(char *buf, size_t size)
{
        if (acs_self_sibling(HELPER_NAME, buf, size) == 0 && access(buf, X_OK) == 0)
                return 0;
        if ((size_t)snprintf(buf, size, "%s/" HELPER_NAME, ACS_PKGLIBEXECDIR) >= size)
                return -ENAMETOOLONG;
        return access(buf, X_OK) == 0 ? 0 : -errno;
}

int acs_exec_full(char **argv, acs_error *err)
{
        char path[PATH_MAX];
        int r = full_path(path, sizeof path);

        if (r < 0)
                return acs_error_errno(err, r, "install",
                                       "this needs %s (not found next to acs-launch or in %s)", HELPER_NAME,
                                       ACS_PKGLIBEXECDIR);
        execv(path, argv);
        return acs_error_errno(err, -errno, "install", "cannot execute %s", path);
}

/* ---- the patch, on the static side -------------------------------------- */
