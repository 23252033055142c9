/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Only in the static-pie acs-launch: it must not dlopen (a static binary
 * would load a second C library), so main() hands the subcommands that
 * need libpython, libgit2 or libmount to acs-launch-full. */
#include "common.h"

const bool acs_static_launcher = true;
