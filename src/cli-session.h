/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The sessions of `acs-launch --server PATH --session ID`, held by the serve master's keeper (cli-session.c).
 */
#pragma once

#include <signal.h>
#include <sys/types.h>

#include "cli.h"

/*
 * Fork the keeper of CLI sessions (serve's master, before its connection
 * processes): *ret_fd is the end the connection processes hand session
 * runs to (acs_serve_cli_set_keeper). Returns its pid, 0 when sessions are
 * off (--max-sessions 0), or -errno.
 */
pid_t acs_cli_sessions_start(const acs_options *o, const sigset_t *oldmask, int *ret_fd);
/* One message with n fds attached (SCM_RIGHTS) on a SOCK_SEQPACKET socket; -errno. */
int acs_send_with_fds(int sock, const char *buf, size_t len, const int *fds, size_t n);
