/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The function table exported by acs-scan.so (the only code that links
 * libpython). Shared by src/scan-load.c (the launcher side) and src/scan-py.c.
 * Bump ACS_SCAN_ABI when any signature or struct the table uses changes:
 * a stale module from another build is refused instead of misread.
 */
#pragma once

#include "profile.h"
#include "report.h"

#define ACS_SCAN_ABI 3
#define ACS_SCAN_MODULE_NAME "acs-scan.so"
#define ACS_SCAN_SYMBOL "acs_scan_module_v1"
/* The in-sandbox scanner: a CPython extension module (scan-ext.c). */
#define ACS_SCAN_EXT_NAME "acs-scan-ext.so"

typedef struct acs_scan_module {
        unsigned abi;
        size_t profile_size; /* sizeof(acs_profile) as the module saw it */
        size_t result_size;  /* sizeof(acs_scan_result) */
        /* command: code given as text (python3 -c): a coding cookie in it is ignored */
        int (*scan)(const acs_profile *p, const char *src, size_t len, const char *filename, bool command,
                    acs_scan_result *ret, acs_error *err);
} acs_scan_module;

/* DIR/name of a scan module: $ACS_SCAN_MODULE_DIR, the build tree's .libs
 * when this binary runs from it, else pkglibdir (scan.c). */
int acs_scan_module_path(const char *name, char *buf, size_t size, acs_error *err);
