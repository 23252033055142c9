/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The launcher's side of the scan that the run path needs: where the scan
 * modules are, the in-sandbox module's fd and bootstrap, and the verdict
 * line it sends back. No dlopen here (this is in the static acs-launch):
 * loading acs-scan.so for `check` and MCP is scan-load.c's.
 */
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <json-c/json.h>

#include "ansi.h"
#include "diff.h"
#include "scan-module.h"
#include "scan-text.h"
#include "scan.h"

/* Is /proc/self/exe inside the build tree? Then use the uninstalled module. */
static bool running_uninstalled(void)
{
        char exe[PATH_MAX];
        if (acs_self_exe(exe, sizeof exe) < 0)
                return false;
        size_t b = strlen(ACS_ABS_BUILDDIR);
        return strncmp(exe, ACS_ABS_BUILDDIR, b) == 0 && exe[b] == '/';
}

int acs_scan_module_path(const char *name, char *buf, size_t size, acs_error *err)
{
        const char *dir = getenv("ACS_SCAN_MODULE_DIR");
        if (!dir || !*dir)
                dir = running_uninstalled() ? ACS_ABS_BUILDDIR "/.libs" : ACS_PKGLIBDIR;
        if ((size_t)snprintf(buf, size, "%s/%s", dir, name) >= size)
                return acs_error_set(err, -ENAMETOOLONG, "scan", "scan module path too long");
        return 0;
}


int acs_scan_ext_open(acs_error *err)
{
        char path[PATH_MAX];
        int r = acs_scan_module_path(ACS_SCAN_EXT_NAME, path, sizeof path, err);
        if (r < 0)
                return r;
        int fd = open(path, O_RDONLY | O_CLOEXEC);
        if (fd < 0)
                return acs_error_errno(err, -errno, "scan",
                                       "cannot open the scan module %s (set ACS_SCAN_MODULE_DIR?)", path);
        if ((r = acs_fd_above_stdio(fd)) < 0) /* the program's stdio will take 0-2 */
                return acs_error_errno(err, r, "scan", "fcntl");
        return r;
}

int acs_scan_boot(char *buf, size_t size, int policy_fd, int module_fd)
{
        /* Only builtins and names prepare_main() in scan-ext.c removes again. */
        return snprintf(buf, size,
                        "import _imp\n"
                        "class S: name = '_acs_scan'; origin = '/proc/self/fd/%d'\n"
                        "_imp.create_dynamic(S).run(%d, %d)\n",
                        module_fd, policy_fd, module_fd);
}

int acs_scan_boot_warm(char *buf, size_t size, int fd, int module_fd, bool session)
{
        /* the same two names as acs_scan_boot: prepare_main() removes them */
        return snprintf(buf, size,
                        "import _imp\n"
                        "class S: name = '_acs_scan'; origin = '/proc/self/fd/%d'\n"
                        "_imp.create_dynamic(S).%s(%d, %d)\n",
                        module_fd, session ? "session" : "warm", fd, module_fd);
}

/* ---- the report line from the module, and JSON for reports ---- */

static char *dup_member(struct json_object *o, const char *key, size_t max)
{
        struct json_object *v;
        if (!json_object_object_get_ex(o, key, &v) || !json_object_is_type(v, json_type_string))
                return NULL;
        return acs_scan_clean_text(json_object_get_string(v), max);
}

static int int_member(struct json_object *o, const char *key)
{
        struct json_object *v;
        return json_object_object_get_ex(o, key, &v) ? json_object_get_int(v) : 0;
}

int acs_scan_result_from_json(const char *line, acs_scan_result *ret)
{
        static const acs_verdict verdicts[] = {ACS_VERDICT_PASS, ACS_VERDICT_REJECT, ACS_VERDICT_WARN,
                                               ACS_VERDICT_SKIPPED};
        struct json_object *o = line ? json_tokener_parse(line) : NULL, *v, *fs;
        acs_scan_result r = {0};
        int ret_code = -EINVAL;
        if (!o || !json_object_is_type(o, json_type_object) ||
            !json_object_object_get_ex(o, "verdict", &v) || !json_object_is_type(v, json_type_string))
                goto out;
        size_t i;
        for (i = 0; i < ELEMENTSOF(verdicts); i++)
                if (strcmp(json_object_get_string(v), acs_verdict_to_string(verdicts[i])) == 0)
                        break;
        if (i == ELEMENTSOF(verdicts))
                goto out;
        r.verdict = verdicts[i];
        if (json_object_object_get_ex(o, "ms", &v))
                r.ms = json_object_get_double(v);
        if (json_object_object_get_ex(o, "findings", &fs) && json_object_is_type(fs, json_type_array)) {
                size_t n = json_object_array_length(fs);
                if (n && !(r.findings = calloc(n, sizeof *r.findings))) {
                        ret_code = -ENOMEM;
                        goto out;
                }
                for (i = 0; i < n; i++) {
                        struct json_object *f = json_object_array_get_idx(fs, i);
                        acs_finding *x = &r.findings[r.n_findings++];
                        x->rule = dup_member(f, "rule", ACS_FINDING_NAME_MAX);
                        x->name = dup_member(f, "name", ACS_FINDING_NAME_MAX);
                        x->message = dup_member(f, "message", ACS_FINDING_MESSAGE_MAX);
                        x->line = int_member(f, "line");
                        x->col = int_member(f, "col");
                        if (!x->rule || !x->name || !x->message)
                                goto out;
                }
        }
        *ret = r;
        r = (acs_scan_result){0};
        ret_code = 0;
out:
        acs_scan_result_done(&r);
        json_object_put(o);
        return ret_code;
}


void acs_scan_print_finding(FILE *out, const char *file, const acs_finding *f)
{
        /* a message may quote a string of the code (an import name given to
         * __import__): it must not drive the terminal it is printed on */
        size_t n = strlen(f->message);
        bool plain = acs_ansi_plain(f->message, n);
        _cleanup_free_ char *q = plain ? NULL : acs_quote_c(f->message, n);
        fprintf(out, "%s:%d:%d: %s: %s\n", file, f->line, f->col, f->rule, plain ? f->message : q ? q : "?");
}
