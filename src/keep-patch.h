/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* A kept layer's changes.patch, indexed and held against its manifest (pure). */
#pragma once

#include "diff-internal.h"

/* One "diff --git" record of a patch as patch.c writes it. */
typedef struct acs_patch_rec {
        char *path;
        uint32_t old_mode, new_mode; /* git modes (0100644, 0100755, 0120000), 0 = absent */
        char old_id[41], new_id[41]; /* full blob ids of the "index" line */
        bool has_index, new_file, deleted;
        bool used;                   /* matched by a change of the manifest */
        size_t order;                /* position in the patch */
} acs_patch_rec;

typedef struct acs_patch_index {
        acs_patch_rec *v;
        size_t n;
} acs_patch_index;

/* Index the records of a patch; -EBADMSG with *bad_line at the offending
 * line when it is not a patch acs-launch wrote. */
int acs_patch_index_parse(const char *patch, size_t len, acs_patch_index *ret, const char **bad_line);
/* Sort by path (records of one path keep their order); before checking. */
void acs_patch_index_sort(acs_patch_index *x);
void acs_patch_index_done(acs_patch_index *x);

/*
 * Does the patch show change ch (of list 'A', 'M' or 'D') exactly: the same
 * git modes, and new_blob (the git blob id of the kept file; symlinks are
 * computed here) as the new content? Changes git cannot express
 * (directories, special files, other permission bits) must not appear.
 * Sets ch->old_git from the patch for apply's check of the host. 0, or
 * -EBADMSG with *why.
 */
int acs_patch_check_change(acs_patch_index *x, acs_change *ch, char list, const char *new_blob,
                           const char **why);
/* A record no change matched (the patch shows more than the manifest), or NULL. */
const char *acs_patch_unused(const acs_patch_index *x);
