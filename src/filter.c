/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Loading the seccomp filter. The rules live in filter-rules.c and are
 * compiled by libseccomp at build time into src/filter-bpf.h (written by
 * src/gen-filter), one program per network mode. At run time nothing is
 * built: the launcher loads that program with one prctl. Building with
 * libseccomp at run time costs about 1.5 ms per run here for this rule set
 * (bench/filter-bench; performance-notes.md measured 90 µs for a smaller
 * one) and allocates, which matters in a CLONE_VM/vfork child that shares
 * its parent's heap.
 *
 * A profile's [seccomp] deny list is put in front of the baked program as a
 * short jump table:
 *
 *      ld  arch;  jeq NATIVE ? next : skip the table
 *      ld  nr;    (jeq NR_i ? ret ERRNO(EPERM) : next)*
 *      <the baked program>
 *
 * Calls of another ABI, and x32 calls (their nr carries __X32_SYSCALL_BIT,
 * so it never equals a native number), fall through to the baked program,
 * which kills them. Names the baseline already denies are left to the
 * baseline, which keeps its errno (clone3 must stay ENOSYS). The unit test
 * checks that this gives the same answer as libseccomp building everything.
 */
#include <errno.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/prctl.h>

#include "filter-rules.h"
#include "filter.h"
#include "src/filter-bpf.h"

static bool no_extra(const acs_filter_opts *o)
{
        return (!o->extra_deny || !o->extra_deny[0]) && !o->deny_memfd && !o->deny_sysv;
}

int acs_filter_validate_names(char *const *names, acs_error *err)
{
        for (char *const *n = names; n && *n; n++)
                if (acs_filter_resolve(*n) == -ENOENT)
                        return acs_error_set(err, -EINVAL, "seccomp",
                                             "[seccomp] deny: unknown syscall '%s'", *n);
        return 0;
}

static void baked(bool net_none, const struct sock_filter **ret, size_t *ret_len)
{
        if (net_none) {
                *ret = acs_bpf_net_none;
                *ret_len = ELEMENTSOF(acs_bpf_net_none);
        } else {
                *ret = acs_bpf_net_loopback;
                *ret_len = ELEMENTSOF(acs_bpf_net_loopback);
        }
}

/* The deny table in front of the baked program (see the top of this file). */
static int prepare_prefixed(const acs_filter_opts *o, acs_filter_prog *ret, acs_error *err)
{
        const struct sock_filter *base;
        size_t base_len, n = 0, i = 0, total;
        struct sock_filter *p;

        const char *unbounded[4];
        size_t n_unbounded = acs_filter_unbounded_names(o, unbounded);
        baked(o->net_none, &base, &base_len);
        for (char **s = o->extra_deny; s && *s; s++)
                n++;
        n += n_unbounded;
        total = 4 + 2 * n + base_len;
        if (total > BPF_MAXINSNS)
                return acs_error_set(err, -E2BIG, "seccomp", "[seccomp] deny: too many names");
        p = malloc(total * sizeof(*p));
        if (!p)
                return acs_error_set(err, -ENOMEM, "seccomp", "out of memory");

        p[i++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch));
        p[i++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, ACS_BPF_AUDIT_ARCH, 1, 0);
        size_t skip_at = i++; /* ja over the table; filled in below */
        p[i++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr));
        for (size_t k = 0; k < n; k++) {
                const char *name = k < n_unbounded ? unbounded[k] : o->extra_deny[k - n_unbounded];
                int nr;
                if (acs_filter_baseline_denies(name))
                        continue; /* the baseline's rule and errno stay */
                nr = acs_filter_resolve(name);
                if (nr == -ENOENT) {
                        free(p);
                        return acs_error_set(err, -EINVAL, "seccomp", "unknown syscall '%s'", name);
                }
                if (nr < 0)
                        continue; /* only in a foreign ABI, which is killed */
                p[i++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (uint32_t)nr, 0, 1);
                p[i++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM);
        }
        p[skip_at] = (struct sock_filter)BPF_STMT(BPF_JMP | BPF_JA, (uint32_t)(i - skip_at - 1));
        memcpy(p + i, base, base_len * sizeof(*p));
        i += base_len;

        *ret = (acs_filter_prog){ .fprog = { .len = (unsigned short)i, .filter = p }, .owned = p };
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
        const struct sock_filter *base;
        size_t len;

        if (!no_extra(o))
                return prepare_prefixed(o, ret, err);
        baked(o->net_none, &base, &len);
        /* The kernel copies the program; the cast only satisfies sock_fprog. */
        *ret = (acs_filter_prog){
                .fprog = { .len = (unsigned short)len, .filter = (struct sock_filter *)(uintptr_t)base },
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

void acs_filter_init_prog(bool exec, struct sock_fprog *ret)
{
        const struct sock_filter *f = exec ? acs_bpf_init_exec : acs_bpf_init;
        size_t len = exec ? ELEMENTSOF(acs_bpf_init_exec) : ELEMENTSOF(acs_bpf_init);
        *ret = (struct sock_fprog){ .len = (unsigned short)len, .filter = (struct sock_filter *)(uintptr_t)f };
}

void acs_filter_prog_done(acs_filter_prog *p)
{
        free(p->owned);
        *p = (acs_filter_prog){ 0 };
}

int acs_filter_install(const acs_filter_opts *o, acs_error *err)
{
        acs_filter_prog prog = { 0 };
        int r;

        r = acs_filter_prepare(o, &prog, err);
        if (r >= 0)
                r = acs_filter_load(&prog, err);
        acs_filter_prog_done(&prog);
        return r;
}
