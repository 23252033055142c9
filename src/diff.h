/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The overlay upper layer after a run: classification, patch, apply. */
#pragma once

#include "common.h"

struct json_object;

typedef enum {
        ACS_FT_NONE = 0,
        ACS_FT_FILE,
        ACS_FT_DIR,
        ACS_FT_SYMLINK,
        ACS_FT_FIFO,
        ACS_FT_SOCKET,
        ACS_FT_CHAR,
        ACS_FT_BLOCK,
} acs_ftype;

typedef struct acs_change {
        char *path;          /* raw bytes relative to /workspace (may be non-UTF-8) */
        size_t path_len;
        acs_ftype type;      /* new type (ACS_FT_NONE for deletions) */
        acs_ftype old_type;  /* type in the lower layer (ACS_FT_NONE for additions) */
        uint64_t size;
        uint32_t mode;       /* permission bits */
        uint32_t old_mode;
        char sha256[65];     /* regular files: hex digest, "" otherwise */
        char old_sha256[65];
        char *target;        /* symlink target, never followed */
        bool is_protected;   /* matches [filesystem] protect: flagged, never applied */
} acs_change;

typedef struct acs_changes {
        acs_change *added;
        size_t n_added;
        acs_change *modified;
        size_t n_modified;
        acs_change *deleted;
        size_t n_deleted;
        char *patch;         /* git-style patch, NULL unless asked for */
        size_t patch_len;
} acs_changes;

void acs_changes_free(acs_changes *c);
/* The "files" object of the report (interfaces.md §3). */
struct json_object *acs_changes_to_json(const acs_changes *c);
