/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* seccomp (libseccomp): the baseline of security-model.md, loaded last before exec. */
#pragma once

#include "common.h"

typedef struct acs_filter_opts {
        bool net_none;     /* deny sockets other than AF_UNIX */
        char **extra_deny; /* profile [seccomp] deny: syscall names */
} acs_filter_opts;

/* Install in the calling process (after caps are dropped and NNP is set). */
int acs_filter_install(const acs_filter_opts *o, acs_error *err);
