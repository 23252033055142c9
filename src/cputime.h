/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The sandbox's total CPU time, for `[limits] cpu` (security-model.md:
 * `cpu` bounds the whole sandbox's CPU time, not each process's).
 * RLIMIT_CPU is per process: N forked spinners get N x cpu seconds. The
 * supervisor samples the total and kills the sandbox at the limit:
 *
 *  - with the run's cgroup v2 (any delegated one: cpu.stat exists without
 *    the cpu controller): usage_usec, exact;
 *  - without: the process tree under init, from /proc (utime + stime +
 *    cutime + cstime of every live process: a reaped process's time is in
 *    its reaper's cutime). A child that its parent lets the kernel reap
 *    (SIGCHLD ignored) takes its time with it: the per-process RLIMIT_CPU
 *    and the wall-clock timeout still bound it. The report says "sampled".
 *
 * Samples are spaced by what is left of the budget divided by the CPUs that
 * could burn it, so a short run is never sampled and the kill comes within
 * a few milliseconds of the limit.
 */
#pragma once

#include <stdint.h>
#include <sys/types.h>

/* ---- pure (unit-tested) ---------------------------------------------- */

/* utime + stime + cutime + cstime, in clock ticks, from the text of
 * /proc/PID/stat; -EINVAL when it does not parse. */
int acs_proc_stat_cpu_ticks(const char *text, uint64_t *ret);
/* The children pids in the text of /proc/PID/task/TID/children ("12 13 ");
 * calls add(pid, ctx) for each; returns how many. */
size_t acs_parse_children(const char *text, void (*add)(pid_t pid, void *ctx), void *ctx);
/* Milliseconds until the next sample: what is left of the budget spread
 * over the CPUs that could use it, at least 5 ms, at most 1 s. */
int64_t acs_cpu_next_sample_ms(int64_t limit_us, int64_t used_us, int ncpu);

/* ---- the syscall side ------------------------------------------------ */

/* The sandbox's CPU time so far, µs: from the cgroup directory cg_fd when
 * >= 0 (cpu.stat), else from init's process tree. -errno when neither
 * can be read. */
int acs_sandbox_cpu_us(int cg_fd, pid_t init, int64_t *ret);
