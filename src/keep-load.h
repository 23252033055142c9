/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Kept layers (--keep DIR): the layout and the checks apply relies on. */
#pragma once

#include <sys/stat.h>

#include "diff-internal.h"

/* The layout (acs-launch(1), KEPT LAYERS). */
#define ACS_KEEP_SCHEMA "acs-keep/2"
#define ACS_KEEP_MANIFEST "acs-keep.json"
#define ACS_KEEP_PATCH "changes.patch"
#define ACS_KEEP_TREE "tree"

/* The keep directory dfd (named dir) and every directory above it are the
 * caller's (or root's) and nobody else may write them (sticky excepted). */
int acs_keep_dir_trusted(int dfd, const char *dir, acs_error *err);
/* Open dfd/name: a regular file of the caller's others cannot write, no
 * symlink followed, no waiting on a FIFO. The fd or -errno (err filled). */
int acs_keep_open_file(int dfd, const char *dir, const char *name, struct stat *ret_st, acs_error *err);
