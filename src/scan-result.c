/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The scan's result record and error record: the bottom layer of the scan
 * (doc/design.md), which every other scan file may use and which uses none.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scan-text.h"
#include "scan-walk.h"

int acs_scan_error(acs_error *err, int code, const char *fmt, ...)
{
        va_list ap;
        if (!err)
                return code;
        err->code = code;
        if (err->exit_status == 0)
                err->exit_status = 125;
        snprintf(err->stage, sizeof err->stage, "scan");
        va_start(ap, fmt);
        vsnprintf(err->msg, sizeof err->msg, fmt, ap);
        va_end(ap);
        return code;
}

/* Names and messages quote the code: clipped and escaped here, once for every rule (scan-text.h). */
int acs_scan_add_finding(acs_scan_result *r, const char *rule, const char *name, int line, int col,
                         const char *message)
{
        acs_finding *v = realloc(r->findings, (r->n_findings + 1) * sizeof *v);
        if (!v)
                return -ENOMEM;
        r->findings = v;
        acs_finding *f = &v[r->n_findings];
        *f = (acs_finding){.rule = strdup(rule), .name = acs_scan_clean_text(name, ACS_FINDING_NAME_MAX),
                           .line = line, .col = col,
                           .message = acs_scan_clean_text(message, ACS_FINDING_MESSAGE_MAX)};
        if (!f->rule || !f->name || !f->message) {
                free(f->rule);
                free(f->name);
                free(f->message);
                return -ENOMEM;
        }
        r->n_findings++;
        return 0;
}

void acs_scan_result_clear(acs_scan_result *r)
{
        for (size_t i = 0; i < r->n_findings; i++) {
                free(r->findings[i].rule);
                free(r->findings[i].name);
                free(r->findings[i].message);
        }
        free(r->findings);
        *r = (acs_scan_result){0};
}
