/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Internal to the seccomp layer: the rule set expressed with libseccomp.
 * Shared by filter.c (run-time building) and gen-filter.c (the build step
 * that bakes the baseline into src/filter-bpf.h).
 */
#pragma once

#include <seccomp.h>

#include "filter.h"

/* Build the complete filter (baseline + network + extra_deny) into a new context. */
int acs_filter_build(const acs_filter_opts *o, scmp_filter_ctx *ret, acs_error *err);

/* pid 1's own, tighter filter (wait, report, exit; execveat when exec). */
int acs_filter_build_init(bool exec, scmp_filter_ctx *ret, acs_error *err);

/* The syscall names the deny_memfd / deny_sysv options add; returns how many. */
size_t acs_filter_unbounded_names(const acs_filter_opts *o, const char *ret[static 4]);

/* Export ctx as raw BPF (heap array of *ret_len instructions). */
int acs_filter_export(scmp_filter_ctx ctx, struct sock_filter **ret, size_t *ret_len, acs_error *err);

/*
 * Resolve a syscall name for the native ABI: >= 0 the number; -ENOENT not a
 * syscall at all; -EDOM a syscall that does not exist in the native ABI
 * (vm86, stime, ... on x86_64: only reachable through a killed ABI).
 */
int acs_filter_resolve(const char *name);

/* The baseline denies this syscall name unconditionally (with its own errno). */
bool acs_filter_baseline_denies(const char *name);
