/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A session call's changes since the previous call (issue 14, item 3). Each
 * call's report lists the workspace's changes since the session started
 * (files); this compares that list with the previous call's to say which
 * paths were added, modified or deleted in between. A path missing from a
 * list is as the lower layer has it. Pure.
 */
#pragma once

#include "diff.h"

typedef struct acs_delta_entry {
        char *path;
        size_t path_len;
        char kind;           /* 'A', 'M', 'D': against the session's start */
        acs_ftype type;
        uint32_t mode;
        uint64_t size;
        char sha256[65];
        char *target;
} acs_delta_entry;

/* What a call's list said, sorted by path; truncated when the list was. */
typedef struct acs_delta_snapshot {
        acs_delta_entry *v;
        size_t n;
        bool truncated;
} acs_delta_snapshot;

/* The paths changed since the previous call (they point into the snapshots). */
typedef struct acs_delta {
        const acs_delta_entry **added, **modified, **deleted;
        size_t n_added, n_modified, n_deleted;
} acs_delta;

int acs_delta_snapshot_take(const acs_changes *c, acs_delta_snapshot *ret);
void acs_delta_snapshot_done(acs_delta_snapshot *s);
/* now against prev: 0, -ENOMEM, -ERANGE when either list is truncated (no delta can be told). */
int acs_delta_compute(const acs_delta_snapshot *prev, const acs_delta_snapshot *now, acs_delta *ret);
void acs_delta_done(acs_delta *d);
/* {"added": [PATH...], "modified": [...], "deleted": [...]}, each path escaped as in the lists. */
struct json_object *acs_delta_to_json(const acs_delta *d);
