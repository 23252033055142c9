/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The effective policy of a profile, after inheritance, as text and JSON. */
#pragma once

#include <stdio.h>

#include "profile.h"

struct json_object;

/* Pure: a profile file that parses to p's values (every key); caller frees. */
char *acs_profile_to_text(const acs_profile *p);
/* Pure: {"schema":"acs-profile/1","name","path","SECTION":{"key":value,...},...}. */
struct json_object *acs_profile_to_json(const acs_profile *p);
/* `acs-launch profiles --show NAME [--json]`: load NAME and print it. */
int acs_profile_show(FILE *out, const char *name, bool json, acs_error *err);
