/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The launcher's side of the scan: find acs-scan.so, dlopen it only when a
 * scan is needed (libpython costs ~6 ms of load time; runs that do not scan
 * must not pay it), and the `check` command.
 */
#include <dlfcn.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
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
        ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
        if (n <= 0)
                return false;
        exe[n] = '\0';
        size_t b = strlen(ACS_ABS_BUILDDIR);
        return strncmp(exe, ACS_ABS_BUILDDIR, b) == 0 && exe[b] == '/';
}

static int module_path(const char *name, char *buf, size_t size, acs_error *err)
{
        const char *dir = getenv("ACS_SCAN_MODULE_DIR");
        if (!dir || !*dir)
                dir = running_uninstalled() ? ACS_ABS_BUILDDIR "/.libs" : ACS_PKGLIBDIR;
        if ((size_t)snprintf(buf, size, "%s/%s", dir, name) >= size)
                return acs_error_set(err, -ENAMETOOLONG, "scan", "scan module path too long");
        return 0;
}

/*
 * The module is never closed: libpython cannot be unloaded.
 */
static int load_module(const acs_scan_module **ret, acs_error *err)
{
        char path[PATH_MAX];
        int r = module_path(ACS_SCAN_MODULE_NAME, path, sizeof path, err);
        if (r < 0)
                return r;
        if (acs_static_launcher) /* never: a static program must not dlopen (full.c) */
                return acs_error_set(err, -ENOSYS, "scan", "libpython is not available in the static acs-launch");
        void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
        if (!h)
                return acs_error_set(err, -ENOENT, "scan",
                                     "cannot load the scan module: %s (set ACS_SCAN_MODULE_DIR?)",
                                     dlerror());
        const acs_scan_module *m = dlsym(h, ACS_SCAN_SYMBOL);
        if (!m)
                return acs_error_set(err, -ENOENT, "scan", "%s: no symbol %s", path, ACS_SCAN_SYMBOL);
        if (m->abi != ACS_SCAN_ABI || m->profile_size != sizeof(acs_profile) ||
            m->result_size != sizeof(acs_scan_result))
                return acs_error_set(err, -EPROTO, "scan",
                                     "%s was built for another acs-launch (abi %u, want %u); reinstall it",
                                     path, m->abi, ACS_SCAN_ABI);
        *ret = m;
        return 0;
}

/*
 * The loaded module's table. Like libpython itself this is process state by
 * nature (a dlopen is for the life of the process); remembering it saves a
 * readlink and a dlopen lookup on every warm scan.
 */
static const acs_scan_module *prepared;
static pthread_mutex_t prepared_lock = PTHREAD_MUTEX_INITIALIZER;

static int get_module(const acs_scan_module **ret, acs_error *err)
{
        int r = 0;
        pthread_mutex_lock(&prepared_lock);
        if (!prepared)
                r = load_module(&prepared, err);
        *ret = prepared;
        pthread_mutex_unlock(&prepared_lock);
        return r;
}

int acs_scan_source(const acs_profile *p, const char *src, size_t len, const char *filename, bool command,
                    acs_scan_result *ret, acs_error *err)
{
        const acs_scan_module *m;
        if (p->scan_mode == ACS_SCAN_OFF) {
                *ret = (acs_scan_result){.verdict = ACS_VERDICT_SKIPPED};
                return 0;
        }
        int r = get_module(&m, err);
        if (r < 0)
                return r;
        return m->scan(p, src, len, filename, command, ret, err);
}

int acs_scan_ext_open(acs_error *err)
{
        char path[PATH_MAX];
        int r = module_path(ACS_SCAN_EXT_NAME, path, sizeof path, err);
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

/* ---- acs-launch check ---- */

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
        size_t len = 0, cap = 0;
        _cleanup_free_ char *buf = NULL;
        for (;;) {
                if (len + 65536 > cap) {
                        size_t ncap = cap ? cap * 2 : 65536 * 2;
                        char *n = realloc(buf, ncap);
                        if (!n)
                                return acs_error_set(err, -ENOMEM, "check", "out of memory reading %s", file);
                        buf = n;
                        cap = ncap;
                }
                if (len >= limit)
                        break;
                ssize_t n = read(in, buf + len, (cap - len < limit - len) ? cap - len : limit - len);
                if (n < 0 && errno == EINTR)
                        continue;
                if (n < 0)
                        return acs_error_errno(err, -errno, "check", "cannot read %s", file);
                if (n == 0)
                        break;
                len += n;
        }
        *ret = TAKE_PTR(buf);
        *ret_len = len;
        return 0;
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

static void print_human(const char *file, const acs_profile *p, const acs_scan_result *s)
{
        for (size_t i = 0; i < s->n_findings; i++)
                acs_scan_print_finding(stdout, file, &s->findings[i]);
        if (s->verdict == ACS_VERDICT_REJECT || s->verdict == ACS_VERDICT_WARN)
                fprintf(stderr, "acs-launch: check: %s: %zu finding%s; %s by profile %s\n", file,
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
                fprintf(stderr, "acs-launch: check: expected one FILE (or -), got %zu\n", nargs);
                return 125;
        }
        if (acs_profile_load(o->profile ? o->profile : "default", &p, &err) < 0 ||
            read_source(file, p->max_source ? p->max_source + 1 : SIZE_MAX, &src, &len, &err) < 0 ||
            acs_scan_bounded(p, src, len, shown, false, &res, &err) < 0) {
                _cleanup_free_ char *msg = acs_scan_clean_text(err.msg, sizeof err.msg);
                fprintf(stderr, "acs-launch: check: %s\n", msg ? msg : "out of memory");
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
                        fprintf(stderr, "acs-launch: check: out of memory\n");
                        goto out;
                }
        } else {
                /* a file name from a cloned repository is no more trusted than the code */
                _cleanup_free_ char *display = acs_scan_clean_text(shown, PATH_MAX);
                print_human(display ? display : "?", p, &res);
        }
        if (fflush(stdout) != 0) {
                fprintf(stderr, "acs-launch: check: cannot write the result: %m\n");
                goto out;
        }
        status = res.verdict == ACS_VERDICT_REJECT ? 126 : 0;
out:
        acs_scan_result_done(&res);
        return status;
}
