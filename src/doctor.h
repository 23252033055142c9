/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Host preflight: `acs-launch doctor` and precise explanations of setup failures. */
#pragma once

#include <stdio.h>

#include "common.h"

/*
 * Print a checklist of what the sandbox needs from this host (user
 * namespaces, overlayfs in a user namespace, seccomp, pidfd, the default
 * profile) and what it can use when present (cgroup v2 delegation,
 * Landlock), with a remedy for each miss. Each probe that changes
 * namespaces runs in a forked child. Returns 0 when every essential check
 * passed, 1 otherwise.
 */
int acs_doctor(FILE *out);

/*
 * Given the errno (either sign) of a failed clone/unshare(CLONE_NEWUSER)
 * or of writing the uid/gid maps, read the sysctls that govern user
 * namespaces and fill err (stage "userns", exit status 125) with which one
 * is in the way and the exact command that fixes it. Returns -errnum.
 */
int acs_preflight_userns_error(int errnum, acs_error *err);

/* Writing the sandbox's uid_map/gid_map (path) failed: under the AppArmor
 * restriction, one line naming the sysctl, the profile and doctor; else
 * "writing PATH: strerror" (stage "userns"). Returns -errnum. */
int acs_preflight_idmap_error(int errnum, const char *path, acs_error *err);

/* sethostname in the sandbox's own UTS namespace failed: under a
 * container's seccomp filter, the fix names the shipped profile (stage "uts"). */
int acs_preflight_uts_error(int errnum, acs_error *err);

/* The same for a failed overlayfs mount inside the sandbox's user namespace (stage "overlay"). */
int acs_preflight_overlay_error(int errnum, acs_error *err);

/* mountinfo.c: submounts of /proc that would stop a procfs mount in a user
 * namespace (NULL-terminated list in *ret; returns their number or -errno). */
int acs_proc_overmounts(char ***ret);
