/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* `acs-launch profiles [--show NAME [--json]]`. */
#include <stdio.h>

#include "commands.h"
#include "profile-show.h"

int acs_cmd_profiles(const acs_options *o)
{
        acs_error err = { 0 };

        if (o->show)
                return acs_profile_show(stdout, o->show, o->json, &err) < 0 ? (acs_print_error(&err), 125) : 0;
        if (o->json) {
                acs_error_set(&err, -EINVAL, "usage", "profiles: --json goes with --show NAME");
                acs_print_error(&err);
                return 125;
        }
        return acs_profile_list(stdout, &err) < 0 ? (acs_print_error(&err), 125) : 0;
}
