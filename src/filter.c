/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Loading the seccomp filter. The rules live in filter-rules.c; this file
 * picks the BPF program generated from them at build time (src/filter-bpf.h,
 * written by src/gen-filter) when the profile adds nothing, and builds one
 * with libseccomp at run time otherwise. The baked program saves about
 * 90 µs per run (performance-notes.md) and needs no allocation, which
 * matters in a CLONE_VM child that shares the launcher's heap.
 */
#include <errno.h>
#include <linux/seccomp.h>
#include <stdint.h>
#include <string.h>
#include <sys/prctl.h>

#include "filter-rules.h"
#include "filter.h"
#include "src/filter-bpf.h"

static bool no_extra(const acs_filter_opts *o)
{
        return !o->extra_deny || !o->extra_deny[0];
}

int acs_filter_validate_names(char *const *names, acs_error *err)
{
        for (char *const *n = names; n && *n; n++) {
                int nr = acs_filter_resolve(*n);
                if (nr == -ENOENT)
                        return acs_error_set(err, -EINVAL, "seccomp",
                                             "[seccomp] deny: unknown syscall '%s'", *n);
        }
        return 0;
}

int acs_filter_prepare_runtime(const acs_filter_opts *o, acs_filter_prog *ret, acs_error *err)
{
        scmp_filter_ctx ctx = NULL;
        struct sock_filter *insns = NULL;
        size_t len = 0;
        int r;

        r = acs_filter_build(o, &ctx, err);
        if (r < 0)
                return r;
        r = acs_filter_export(ctx, &insns, &len, err);
        seccomp_release(ctx);
        if (r < 0)
                return r;
        *ret = (acs_filter_prog){
                .fprog = { .len = (unsigned short)len, .filter = insns },
                .owned = insns,
        };
        return 0;
}

int acs_filter_prepare(const acs_filter_opts *o, acs_filter_prog *ret, acs_error *err)
{
        if (!no_extra(o))
                return acs_filter_prepare_runtime(o, ret, err);

        /* The kernel copies the program; the cast only satisfies sock_fprog. */
        if (o->net_none)
                *ret = (acs_filter_prog){
                        .fprog = { .len = ELEMENTSOF(acs_bpf_net_none),
                                   .filter = (struct sock_filter *)(uintptr_t)acs_bpf_net_none },
                };
        else
                *ret = (acs_filter_prog){
                        .fprog = { .len = ELEMENTSOF(acs_bpf_net_loopback),
                                   .filter = (struct sock_filter *)(uintptr_t)acs_bpf_net_loopback },
                };
        return 0;
}

int acs_filter_load(const acs_filter_prog *p, acs_error *err)
{
        /* Unprivileged filter loading requires no_new_privs. The caller has
         * set it; setting it again is idempotent and keeps this function
         * correct on its own (libseccomp's seccomp_load does the same). */
        if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
                return acs_error_errno(err, -errno, "seccomp", "PR_SET_NO_NEW_PRIVS");
        if (prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &p->fprog, 0, 0) < 0)
                return acs_error_errno(err, -errno, "seccomp", "loading the seccomp filter");
        return 0;
}

void acs_filter_prog_done(acs_filter_prog *p)
{
        free(p->owned);
        *p = (acs_filter_prog){ 0 };
}

int acs_filter_install(const acs_filter_opts *o, acs_error *err)
{
        acs_filter_prog prog;
        scmp_filter_ctx ctx = NULL;
        int r;

        if (no_extra(o)) {
                r = acs_filter_prepare(o, &prog, err);
                return r < 0 ? r : acs_filter_load(&prog, err);
        }
        /* Profile additions: build now and let libseccomp load it directly. */
        r = acs_filter_build(o, &ctx, err);
        if (r < 0)
                return r;
        r = seccomp_load(ctx);
        seccomp_release(ctx);
        if (r < 0)
                return acs_error_errno(err, r, "seccomp", "loading the seccomp filter");
        return 0;
}
