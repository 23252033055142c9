/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Pure wording of what a host or container setting does to the sandbox and
 * the flag that fixes it. doctor.c gathers the facts (sysctls, the seccomp
 * mode); this only turns them into one line, so it is unit-tested.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>

/* Where `make install` and the Debian package put the container seccomp profile. */
#define ACS_CONTAINER_SECCOMP ACS_DATADIR "/acs/containers/seccomp.json"

/* Facts about the process that hit the failure. */
typedef struct acs_host_facts {
        long apparmor_userns; /* kernel.apparmor_restrict_unprivileged_userns; -1 if absent */
        bool privileged;      /* euid 0 (the AppArmor restriction spares CAP_SYS_ADMIN) */
        bool seccomp_filtered; /* /proc/self/status says Seccomp: 2 (a container's filter) */
} acs_host_facts;

/*
 * Writing the sandbox's uid_map or gid_map (path) failed with errno e.
 * When the AppArmor restriction explains it (clone succeeded, the map write
 * is what the restriction refuses), write one line naming the sysctl, the
 * profile and doctor into buf and return true; else false (buf untouched).
 */
bool acs_advice_idmap(int e, const char *path, const acs_host_facts *f, char *buf, size_t size);

/*
 * A syscall of the sandbox's setup (what: "unshare", "sethostname", ...)
 * failed with errno e. When a container's seccomp filter is the likely
 * cause, write the fix naming the shipped profile into buf and return
 * true; else false.
 */
bool acs_advice_container_seccomp(int e, const char *what, const acs_host_facts *f, char *buf,
                                  size_t size);
