/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Host preflight: what the kernel allows, and what to change when it does not. */
#pragma once

#include <stdio.h>

#include "common.h"

int acs_doctor(FILE *out);
/* Explain a failed clone(CLONE_NEWUSER) / overlay mount; fill err; return errnum. */
int acs_preflight_userns_error(int errnum, acs_error *err);
int acs_preflight_overlay_error(int errnum, acs_error *err);
