/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The static acs-launch hands dlopen work to acs-launch-full (full.c). */
#pragma once

#include "common.h"

/* exec acs-launch-full with argv; returns only on failure (err filled) */
int acs_exec_full(char **argv, acs_error *err);
