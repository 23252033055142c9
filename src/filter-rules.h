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
