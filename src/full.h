/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The static acs-launch hands dlopen work to acs-launch-full (see full.c). */
#pragma once

#include "common.h"
#include "diff.h"

/* exec acs-launch-full with argv; returns only on failure (err filled) */
int acs_exec_full(char **argv, acs_error *err);
/* acs_changes_make_patch, done by `acs-launch-full __patch` */
int acs_patch_via_full(int upper_fd, int lower_fd, acs_changes *c, uint64_t max_patch_bytes, acs_error *err);
/* acs-launch-full __patch LOWER_FD MAX_BYTES: upper layer on fd 3, changes (JSON) on stdin */
int acs_patch_helper_main(int argc, char **argv);
