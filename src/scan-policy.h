/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The scan policy as bytes: what the launcher tells the in-sandbox scanner
 * (src/scan-ext.c, loaded into the profile's python3) over the scan socket
 * before any of the program runs. Pure: no syscalls, no libpython.
 *
 * Wire format: the magic "acs-scan-policy/1" and a NUL, then "key=value"
 * strings, each ending in a NUL. List keys repeat once per item. Keys:
 * profile, mode (enforce|warn), max_source, filename, kind (file|command),
 * allow_import, deny_builtin, deny_attribute, deny_member. Unknown keys are an error:
 * launcher and module come from one build.
 */
#pragma once

#include "profile.h"

#define ACS_SCAN_POLICY_MAGIC "acs-scan-policy/1"
/* Larger policies are refused rather than risk blocking the socket write. */
#define ACS_SCAN_POLICY_MAX (64 * 1024)

typedef struct acs_scan_policy {
        /* Only the [scan] fields and name are set; the rest stay zero. */
        acs_profile profile;
        char *filename;  /* names the source in findings */
        bool command;    /* -c CODE (coding cookie ignored) rather than a file */
} acs_scan_policy;

/* Returns 0 and a malloc'ed buffer, -ENOMEM, or -E2BIG (over ACS_SCAN_POLICY_MAX). */
int acs_scan_policy_pack(const acs_profile *p, const char *filename, bool command, char **ret_buf,
                         size_t *ret_len);
/* Returns 0, -EINVAL (malformed; *ret untouched) or -ENOMEM. */
int acs_scan_policy_unpack(const char *buf, size_t len, acs_scan_policy *ret);
void acs_scan_policy_done(acs_scan_policy *pol);
