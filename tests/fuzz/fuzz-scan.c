/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * libFuzzer target: the AST scan as `check` and the MCP server run it (the
 * scan module's entry, src/scan-py.c, with the embedded libpython: the
 * walker, the import/name checks, constant folding) under the shipped
 * default profile. The input is Python source, scanned as a file; with a
 * leading byte 0x01, the rest is scanned as a command (-c). Seeds: the
 * scan's own corpus (tests/data/scan) and tests/fuzz/corpus/scan. Checked besides memory safety: an error says why,
 * and every finding has a rule and a message.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "profile.h"
#include "scan-module.h"

extern const acs_scan_module acs_scan_module_v1;
static acs_profile *profile;

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
        acs_error err = { 0 };

        if (acs_profile_load(ACS_ABS_SRCDIR "/profiles/default.ini", &profile, &err) < 0) {
                fprintf(stderr, "fuzz-scan: %s\n", err.msg);
                abort();
        }
        return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        acs_scan_result res = { 0 };
        acs_error err = { 0 };
        bool command;

        if ((command = size > 0 && data[0] == 1))
                data++, size--;
        if (acs_scan_module_v1.scan(profile, (const char *)data, size, "fuzz.py", command, &res, &err) < 0) {
                if (!err.msg[0])
                        abort();
                return 0;
        }
        for (size_t i = 0; i < res.n_findings; i++)
                if (!res.findings[i].rule || !res.findings[i].message)
                        abort();
        acs_scan_result_done(&res);
        return 0;
}
