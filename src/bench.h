/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include "cli.h"

/* `acs-launch bench`: returns the exit status. */
int acs_cmd_bench(const acs_options *o);
