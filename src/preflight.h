/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Between preflight.c and doctor.c: the host facts and explanations both use. */
#pragma once

#include "common.h"
#include "hostadvice.h"

#define SYSCTL_APPARMOR "/proc/sys/kernel/apparmor_restrict_unprivileged_userns"
#define SYSCTL_MAX_USERNS "/proc/sys/user/max_user_namespaces"
#define SYSCTL_USERNS_CLONE "/proc/sys/kernel/unprivileged_userns_clone"
#define UNPRIV_UID 65534

/* What went wrong and, separately, the command that fixes it (doctor prints them apart). */
typedef struct acs_explanation {
        char problem[600];
        char fix[400];
} acs_explanation;

int acs_preflight_read_long(const char *path, long *ret);
/* Is word one of the blank-separated words of list? */
bool acs_preflight_has_word(const char *list, const char *word);
void acs_preflight_host_facts(acs_host_facts *f);
void acs_preflight_explain(acs_explanation *x, const char *fix, const char *fmt, ...) _printf_(3, 4);
/* Why a user namespace (errno e) or an overlay mount in one failed. */
void acs_preflight_userns_explain(int e, acs_explanation *x);
void acs_preflight_overlay_explain(int e, acs_explanation *x);
