/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* In libacs.a: the dynamically linked binaries (acs-launch-full, or the one
 * acs-launch when it is not static, and the tests) can dlopen. The static
 * acs-launch links src/link-static.c first, so this member is not used. */
#include "common.h"

const bool acs_static_launcher = false;
