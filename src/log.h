/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The launcher's one logger and one tracer. Both write to the launcher's
 * own stderr (or, in the sandbox's setup, a CLOEXEC copy of it: the
 * sandbox config's trace_fd), never to a fd the sandboxed program owns:
 * the program's stdio are pipes created for it and reach 0-2 only in the
 * program's own process, after which nothing here runs there (its last
 * trace line goes to trace_fd; tests/security/cli.sh checks that a -v run's
 * report holds none of them).
 */
#pragma once

#define _printf_log_(a, b) __attribute__((format(printf, a, b)))

/* The log level is the only global mutable state. */
extern int acs_log_level; /* 0 quiet, 1 normal, 2 verbose */

/* "acs-launch: MESSAGE\n" on stderr when level <= acs_log_level. */
void acs_log(int level, const char *fmt, ...) _printf_log_(2, 3);

/*
 * A -v trace line, "acs-launch: %8.3f ms  MESSAGE\n" (milliseconds since
 * t0_ms on the monotonic clock), in one write() to fd. Formatted on the
 * stack, so the sandbox's child may call it after a CLONE_VM clone (it
 * allocates nothing); a line longer than 255 bytes is cut.
 */
void acs_trace_to(int fd, double t0_ms, const char *fmt, ...) _printf_log_(3, 4);
