/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The seccomp layer (security-model.md, layer 2): a baseline deny list at
 * least as strict as Docker's default profile, the network-mode socket rules
 * and the profile's [seccomp] deny list. Loaded as the very last step before
 * execve, after capabilities are dropped and PR_SET_NO_NEW_PRIVS is set.
 */
#pragma once

#include <linux/filter.h>
#include <stdbool.h>

#include "common.h"

typedef struct acs_filter_opts {
        /* network mode none: socket()/socketpair() only for AF_UNIX. Otherwise
         * (loopback) also AF_INET, AF_INET6 and AF_NETLINK/NETLINK_ROUTE. */
        bool net_none;
        /* profile [seccomp] deny: syscall names, NULL-terminated; may be NULL.
         * Each is denied with EPERM on top of the baseline. */
        char **extra_deny;
        /* Shared memory no limit of this run bounds (no memory cgroup):
         * memfd_create, and the SysV get calls when the IPC namespace's
         * limits could not be set either, fail with EPERM. */
        bool deny_memfd;
        bool deny_sysv;
} acs_filter_opts;

/*
 * Build (or pick the one generated at build time) and load the filter into
 * the calling process. Call in the sandboxed child as the last step before
 * execve. With no extra_deny this neither allocates nor calls libseccomp: it
 * loads a BPF program generated at build time (one syscall).
 */
int acs_filter_install(const acs_filter_opts *o, acs_error *err);

/*
 * Check profile syscall names before anything is cloned, so that a typo is
 * a clean error ("unknown syscall 'foo'") and not a failure inside the child.
 */
int acs_filter_validate_names(char *const *names, acs_error *err);

/*
 * Two-step use for callers that want no allocation after clone (a
 * CLONE_VM|CLONE_VFORK child shares the parent's heap): prepare in the
 * parent, load in the child. acs_filter_install() is prepare + load.
 */
typedef struct acs_filter_prog {
        struct sock_fprog fprog;
        struct sock_filter *owned; /* heap copy when built at run time, else NULL */
} acs_filter_prog;

int acs_filter_prepare(const acs_filter_opts *o, acs_filter_prog *ret, acs_error *err);
int acs_filter_load(const acs_filter_prog *p, acs_error *err);
void acs_filter_prog_done(acs_filter_prog *p);

/*
 * pid 1's own filter, baked at build time (no allocation): loaded by init
 * on top of the program's once the program runs. exec: the fast path's init,
 * which execs acs-init, also needs execveat.
 */
void acs_filter_init_prog(bool exec, struct sock_fprog *ret);

/* Build the filter at run time with libseccomp, always (tests, benchmark). */
int acs_filter_prepare_runtime(const acs_filter_opts *o, acs_filter_prog *ret, acs_error *err);
