/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The sync socket between the sandbox and the launcher: one definition for
 * both ends. Included by src/sandbox.c and by the freestanding pid 1
 * (src/init.c), so it holds nothing but fixed-width types and constants.
 *
 * The socket is a SOCK_SEQPACKET pair: one message per send, its first byte
 * the type. Only the sandbox's init holds its end once the program runs
 * (the program's copy is O_CLOEXEC and gone at its exec), so nothing the
 * program controls can write to it.
 *
 *   launcher -> init   ACS_SYNC_GO        (root's and the fork-style clone: the maps are written)
 *   init -> launcher   ACS_MSG_FDS        + SCM_RIGHTS: overlay upper, lower
 *                      ACS_MSG_STARTED    + int32 0: the program was started
 *                      ACS_MSG_STATUS     + int32 wait status + int64 CPU µs
 *                                         + int64 user µs, system µs, max RSS KiB
 *                      ACS_MSG_ERROR      + acs_error (setup failed)
 */
#pragma once

#include <stdint.h>

#define ACS_SYNC_GO 'g'

enum { ACS_MSG_ERROR = 'E', ACS_MSG_FDS = 'F', ACS_MSG_STARTED = 'R', ACS_MSG_STATUS = 'S' };

/*
 * ACS_MSG_STATUS, after the type byte (native byte order, unaligned):
 * the program's wait status, then its CPU time (user + system, µs, from the
 * rusage wait4 returned: the program and every descendant it waited for),
 * then the whole sandbox's usage: user and system CPU µs summed and the
 * largest max RSS (KiB) over every process init reaped.
 * The CPU time is how a RLIMIT_CPU kill is told from any other SIGKILL.
 *
 * Init sends it only when nothing else is left: once the program has
 * ended, init kills every other process of the pid namespace and reaps
 * them all (wait4 says ECHILD). From this message on no process of the
 * sandbox but init itself exists, and init holds no fd but this socket,
 * so the launcher may read the upper layer for the final diff while init's
 * own exit (the mount namespace and its overlays going away, about 0.5 ms
 * per overlay superblock here) runs in parallel; it still reaps init
 * before it reports the run as over.
 */
#define ACS_MSG_STATUS_LEN (1 + 4 + 4 * 8)
