/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* `acs-launch check FILE`: the scan alone, outside a sandbox (acs-launch-full). */
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <json-c/json.h>

#include "scan-text.h"
#include "scan.h"

static const char *file_kind(mode_t m)
{
        if (S_ISDIR(m))
                return "a directory";
        if (S_ISFIFO(m))
                return "a FIFO";
        if (S_ISCHR(m) || S_ISBLK(m))
                return "a device";
        return S_ISSOCK(m) ? "a socket" : "not a file";
}

/*
 * Read at most limit bytes: a source longer than max_source is refused
 * anyway, so there is no point holding all of it.
 */
static int read_source(const char *file, size_t limit, char **ret, size_t *ret_len, acs_error *err)
{
        _cleanup_close_ int fd = -1;
        int in = STDIN_FILENO;
        if (strcmp(file, "-") != 0) {
                struct stat st;
                /* O_NONBLOCK: opening a FIFO must not wait for a writer */
                if ((fd = open(file, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK)) < 0)
                        return acs_error_errno(err, -errno, "check", "cannot open %s", file);
                if (fstat(fd, &st) < 0)
                        return acs_error_errno(err, -errno, "check", "cannot stat %s", file);
                if (!S_ISREG(st.st_mode))
                        return acs_error_set(err, -EINVAL, "check",
                                             "%s is not a regular file (%s); give a file, or - for stdin", file,
                                             file_kind(st.st_mode));
                in = fd;
        }
        int r = acs_read_all(in, limit, ret, ret_len);
        if (r == -ENOMEM)
                return acs_error_set(err, -ENOMEM, "check", "out of memory reading %s", file);
        if (r < 0)
                return acs_error_errno(err, r, "check", "cannot read %s", file);
        return 0;
}

static void print_human(const char *file, const acs_profile *p, const acs_scan_result *s)
{
        for (size_t i = 0; i < s->n_findings; i++)
                acs_scan_print_finding(stdout, file, &s->findings[i]);
        if (s->verdict == ACS_VERDICT_REJECT || s->verdict == ACS_VERDICT_WARN)
                acs_log(0, "check: %s: %zu finding%s; %s by profile %s", file,
                        s->n_findings, s->n_findings == 1 ? "" : "s",
                        s->verdict == ACS_VERDICT_REJECT ? "refused" : "allowed with warnings",
                        p->name ? p->name : "?");
}

static int print_json(const char *file, const acs_profile *p, const acs_scan_result *s)
{
        struct json_object *o = json_object_new_object(), *scan = acs_scan_result_to_json(s);
        if (!o || !scan) {
                json_object_put(o);
                json_object_put(scan);
                return -ENOMEM;
        }
        json_object_object_add(o, "schema", json_object_new_string("acs-check/1"));
        json_object_object_add(o, "profile", json_object_new_string(p->name ? p->name : ""));
        json_object_object_add(o, "file", json_object_new_string(file));
        json_object_object_add(o, "scan", scan);
        puts(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE));
        json_object_put(o);
        return 0;
}

int acs_cmd_check(const acs_options *o)
{
        acs_error err = {0};
        _cleanup_profile_ acs_profile *p = NULL;
        _cleanup_free_ char *src = NULL;
        acs_scan_result res = {0};
        size_t len = 0, nargs = acs_strv_length(o->args);
        const char *file = nargs ? o->args[0] : "-";
        const char *shown = strcmp(file, "-") == 0 ? "<stdin>" : file;
        int status = 125;

        if (nargs > 1) {
                acs_log(0, "check: expected one FILE (or -), got %zu", nargs);
                return 125;
        }
        if (acs_profile_load(o->profile ? o->profile : "default", &p, &err) < 0 ||
            read_source(file, p->max_source ? p->max_source + 1 : SIZE_MAX, &src, &len, &err) < 0 ||
            acs_scan_bounded(p, src, len, shown, false, &res, &err) < 0) {
                _cleanup_free_ char *msg = acs_scan_clean_text(err.msg, sizeof err.msg);
                acs_log(0, "check: %s", msg ? msg : "out of memory");
                if (o->json) { /* still one JSON object on stdout */
                        _cleanup_free_ char *json = acs_report_error_string(msg ? msg : "out of memory",
                                                                             err.exit_status ? err.exit_status : 125);
                        if (json)
                                puts(json);
                }
                return err.exit_status ? err.exit_status : 125;
        }
        if (o->json) {
                if (print_json(shown, p, &res) < 0) {
                        acs_log(0, "check: out of memory");
                        goto out;
                }
        } else {
                /* a file name from a cloned repository is no more trusted than the code */
                _cleanup_free_ char *display = acs_scan_clean_text(shown, PATH_MAX);
                print_human(display ? display : "?", p, &res);
        }
        if (fflush(stdout) != 0) {
                acs_log(0, "check: cannot write the result: %s", strerror(errno));
                goto out;
        }
        status = res.verdict == ACS_VERDICT_REJECT ? 126 : 0;
out:
        acs_scan_result_done(&res);
        return status;
}
