/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The planner (plan.c), pure: profiles from strings or the shipped files,
 * host facts from tables here, never from this machine. The `--dry-run`
 * text of every shipped profile is compared with tests/golden/plan-NAME.txt
 * (ACS_UPDATE_GOLDEN=1 rewrites them: review the diff before committing).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "plan.h"
#include "tap.h"

/* ---- fixed host facts ------------------------------------------------------ */

static char *const fixed_environ[] = { "LANG=C.UTF-8", "HOME=/root", "PATH=/usr/bin:/bin", "TERM=xterm",
                                       "SECRET=launcher-only", NULL };

typedef struct fixed_path {
        const char *path;
        mode_t mode; /* 0: absent (ENOENT) */
} fixed_path;

static const fixed_path fixed_host[] = {
        { "/usr", S_IFDIR | 0755 },           { "/etc/ssl", S_IFDIR | 0755 },
        { "/etc/alternatives", S_IFDIR | 0755 }, { "/etc/ld.so.cache", S_IFREG | 0644 },
        { "/etc/fonts", S_IFDIR | 0755 },     { "/host/data", S_IFDIR | 0755 },
        { "/host/file", S_IFREG | 0644 },     { "/run/agent.sock", S_IFSOCK | 0600 },
        { "/ws", S_IFDIR | 0755 },            { "/ws-file", S_IFREG | 0644 },
        { "/venv/pyvenv.cfg", S_IFREG | 0644 }, { "/venv", S_IFDIR | 0755 },
        { NULL, 0 },
};

static void fact(acs_host_facts *f, const char *path)
{
        for (size_t i = 0; i < f->n_paths; i++)
                if (strcmp(f->paths[i].path, path) == 0)
                        return;
        f->paths = realloc(f->paths, (f->n_paths + 1) * sizeof *f->paths);
        acs_path_fact *pf = &f->paths[f->n_paths++];
        *pf = (acs_path_fact){ .path = strdup(path), .err = ENOENT, .access_ok = true };
        for (const fixed_path *h = fixed_host; h->path; h++)
                if (strcmp(h->path, path) == 0)
                        *pf = (acs_path_fact){ .path = pf->path, .mode = h->mode, .access_ok = true };
}

/* What plan-facts.c gathers, from the tables above instead of this host. */
static void facts_for(const acs_run_request *req, acs_host_facts *f)
{
        *f = (acs_host_facts){ .environ = fixed_environ, .clone = ACS_CLONE_VFORK, .init_image = true, .landlock_abi = 6 };
        char **const lists[] = { req->profile->ro_bind, req->profile->sockets };
        for (size_t l = 0; l < 2; l++)
                for (char **p = lists[l]; p && *p; p++)
                        fact(f, *p);
        for (size_t i = 0; req->opts && i < req->opts->n_mounts; i++)
                if (req->opts->mounts[i].src)
                        fact(f, req->opts->mounts[i].src);
        if (req->opts && req->opts->workspace)
                fact(f, req->opts->workspace);
        if (req->opts && req->opts->venv) {
                char cfg[256];
                snprintf(cfg, sizeof cfg, "%s/pyvenv.cfg", req->opts->venv);
                fact(f, cfg);
                fact(f, req->opts->venv);
        }
}

static acs_profile *parse(const char *text)
{
        acs_profile *p = NULL;
        acs_error err = { 0 };
        if (acs_profile_parse(text, "test.ini", "test", NULL, NULL, &p, &err) < 0)
                diag("%s", err.msg);
        return p;
}

/* plan -> its --dry-run text (NULL on a planning error, with err filled) */
static char *plan_text(const acs_run_request *req, acs_host_facts *f, acs_error *err, int *ret_r)
{
        acs_plan p = { 0 };
        char *text = NULL;
        size_t len = 0;
        bool scan = req->kind != ACS_RUN_EXEC && req->profile->scan_mode != ACS_SCAN_OFF;
        *err = (acs_error){ 0 };
        *ret_r = acs_plan_build(req, f, scan ? (int[]){ -2, -2 } : (int[]){ -1, -1 }, &p, err);
        if (*ret_r >= 0) {
                FILE *m = open_memstream(&text, &len);
                acs_plan_print(m, req, &p, f);
                fclose(m);
        }
        acs_plan_done(&p);
        return text;
}

/* ---- golden plans of the shipped profiles ------------------------------------ */

static char *slurp(const char *path)
{
        FILE *fp = fopen(path, "re");
        if (!fp)
                return NULL;
        char *buf = NULL;
        size_t len = 0;
        FILE *m = open_memstream(&buf, &len);
        int c;
        while ((c = getc(fp)) != EOF)
                putc(c, m);
        fclose(fp);
        fclose(m);
        return buf;
}

static char *replace_all(const char *s, const char *from, const char *to)
{
        char *buf = NULL;
        size_t len = 0, n = strlen(from);
        FILE *m = open_memstream(&buf, &len);
        for (const char *hit; (hit = strstr(s, from)); s = hit + n)
                fprintf(m, "%.*s%s", (int)(hit - s), s, to);
        fputs(s, m);
        fclose(m);
        return buf;
}

static void golden(const char *srcdir, const char *name)
{
        char dir[2048], path[4096];
        snprintf(dir, sizeof dir, "%s/profiles", srcdir);
        snprintf(path, sizeof path, "%s/%s.ini", dir, name);
        _cleanup_free_ char *text = slurp(path);
        acs_profile *prof = NULL;
        acs_error err = { 0 };
        /* inherit: the shipped directory itself (ACS_PROFILE_PATH) */
        setenv("ACS_PROFILE_PATH", dir, 1);
        if (!text || acs_profile_load(path, &prof, &err) < 0) {
                ok(0, "profile %s loads: %s", name, err.msg);
                return;
        }
        bool exec = strcmp(name, "shell") == 0;
        acs_options o = { .workspace = "/ws" };
        acs_run_request req = { .kind = exec ? ACS_RUN_EXEC : ACS_RUN_CODE, .profile = prof, .opts = &o,
                                .argv = exec ? (char *[]){ "sh", "-c", "echo hi", NULL } : (char *[]){ "arg", NULL },
                                .code = "print(1)" };
        acs_host_facts f;
        int r;
        facts_for(&req, &f);
        f.environ = fixed_environ;
        _cleanup_free_ char *raw = plan_text(&req, &f, &err, &r);
        ok(raw != NULL, "profile %s plans (%s)", name, err.msg);
        /* the build's interpreter (configure --with-python) is not the profile's business */
        _cleanup_free_ char *got = raw ? replace_all(raw, ACS_PYTHON, "@ACS_PYTHON@") : NULL;
        snprintf(path, sizeof path, "%s/tests/golden/plan-%s.txt", srcdir, name);
        if (got && getenv("ACS_UPDATE_GOLDEN")) {
                FILE *fp = fopen(path, "we");
                fputs(got, fp);
                fclose(fp);
        }
        _cleanup_free_ char *want = slurp(path);
        ok(got && want && strcmp(got, want) == 0, "profile %s: the plan is tests/golden/plan-%s.txt", name, name);
        if (got && want && strcmp(got, want) != 0)
                diag("got:\n%s", got);
        f.environ = NULL;
        acs_host_facts_done(&f);
        acs_profile_free(prof);
}

/* ---- the planner's rules, table-driven ---------------------------------------- */

typedef struct plan_case {
        const char *name;
        const char *profile;
        acs_options opts;
        acs_run_kind kind;
        int want_r;            /* 0: plans */
        const char *want_in;   /* in the text (or the error message) */
        const char *want_not;  /* not in the text, or NULL */
} plan_case;

static acs_mount_opt bind_missing[] = { { ACS_MOUNT_BIND, "/nowhere", "/data" } };
static acs_mount_opt bind_socket[] = { { ACS_MOUNT_RO_BIND, "/run/agent.sock", "/agent" } };
static acs_mount_opt bind_dotdot[] = { { ACS_MOUNT_BIND, "/host/data", "/a/../etc" } };
static acs_mount_opt bind_rw[] = { { ACS_MOUNT_BIND, "/host/data", "/workspace/data" },
                                   { ACS_MOUNT_RO_BIND, "/host/file", "/f" },
                                   { ACS_MOUNT_TMPFS, NULL, "/scratch" } };

static const plan_case cases[] = {
        { "locked timeout may not loosen", "[profile]\nlocked = timeout\n[limits]\ntimeout = 5\n",
          { .has_timeout = true, .timeout = 10 }, ACS_RUN_CODE, -EPERM, "locks timeout", NULL },
        { "locked timeout may tighten", "[profile]\nlocked = timeout\n[limits]\ntimeout = 5\n",
          { .has_timeout = true, .timeout = 2 }, ACS_RUN_CODE, 0, "timeout      2 s", NULL },
        { "locked bind refuses any --bind", "[profile]\nlocked = bind\n",
          { .mounts = bind_rw, .n_mounts = 1 }, ACS_RUN_CODE, -EPERM, "locks bind", NULL },
        { "an optional ro_bind absent on the host is left out", "[filesystem]\nro_bind = /usr /opt/absent\n",
          { 0 }, ACS_RUN_CODE, 0, "/usr <- /usr", "/opt/absent" },
        { "a --bind source that is missing is an error", "", { .mounts = bind_missing, .n_mounts = 1 },
          ACS_RUN_CODE, -ENOENT, "cannot bind '/nowhere'", NULL },
        { "a socket only through [filesystem] sockets", "", { .mounts = bind_socket, .n_mounts = 1 },
          ACS_RUN_CODE, -EPERM, "is a unix socket (a host service)", NULL },
        { "[filesystem] sockets must name sockets", "[filesystem]\nsockets = /host/file\n", { 0 }, ACS_RUN_EXEC,
          -EPERM, "is not a unix socket", NULL },
        { "a destination with .. is refused", "", { .mounts = bind_dotdot, .n_mounts = 1 }, ACS_RUN_CODE, -EINVAL,
          "without '..'", NULL },
        { "binds: rw dir covered, file bound, tmpfs added", "", { .mounts = bind_rw, .n_mounts = 3 }, ACS_RUN_CODE, 0,
          "/workspace/data <- /host/data: rw bind, host sockets covered", NULL },
        { "a tmpfs from the command line", "", { .mounts = bind_rw, .n_mounts = 3 }, ACS_RUN_CODE, 0,
          "/scratch: scratch dir", NULL },
        { "the workspace must be a directory", "", { .workspace = "/ws-file" }, ACS_RUN_CODE, -ENOTDIR,
          "is not a directory", NULL },
        { "a missing workspace", "", { .workspace = "/ws-gone" }, ACS_RUN_CODE, -ENOENT,
          "cannot use '/ws-gone' as the workspace", NULL },
        { "[env] keep takes the launcher's value", "[env]\nkeep = LANG\n", { 0 }, ACS_RUN_EXEC, 0, "LANG=C.UTF-8",
          "SECRET" },
        { "--unsetenv removes a kept variable", "[env]\nkeep = LANG TERM\n", { .unsetenv = (char *[]){ "TERM", NULL } },
          ACS_RUN_EXEC, 0, "LANG=C.UTF-8", "TERM=" },
        { "--setenv wins over [env] set", "[env]\nset = A=1\n", { .setenv = (char *[]){ "A=2", NULL } }, ACS_RUN_EXEC, 0,
          "  A=2\n", "A=1" },
        { "a loader variable is refused in a scanned run", "", { .setenv = (char *[]){ "LD_PRELOAD=/x.so", NULL } },
          ACS_RUN_CODE, -EPERM, "--setenv LD_PRELOAD", NULL },
        { "the scan bootstrap is never printed raw", "", { 0 }, ACS_RUN_CODE, 0, "<scan bootstrap>", "fdopen" },
        { "net loopback loosens a locked net none", "[profile]\nlocked = net\n[network]\nmode = none\n",
          { .has_net = true, .net = ACS_NET_LOOPBACK }, ACS_RUN_EXEC, -EPERM, "locks net", NULL },
        { "seccomp deny list is shown", "[seccomp]\ndeny = ptrace personality\n", { 0 }, ACS_RUN_EXEC, 0,
          "deny ptrace personality", NULL },
        { "--venv: interpreter and read-only bind", "[python]\nflags = -I\n", { .venv = "/venv" }, ACS_RUN_CODE, 0,
          "/venv <- /venv: read-only overlay", NULL },
        { "--venv: its python is the interpreter", "[python]\nflags = -I\n", { .venv = "/venv" }, ACS_RUN_CODE, 0,
          "[0] /venv/bin/python3\n", NULL },
        { "--venv with python -S is refused", "[python]\nflags = -I -S\n", { .venv = "/venv" }, ACS_RUN_CODE,
          -EINVAL, "skips the venv", NULL },
        { "exec ignores the venv", "", { .venv = "/venv" }, ACS_RUN_EXEC, 0, "[0] true\n", "/venv" },
        { "a venv needs pyvenv.cfg", "", { .venv = "/host/data" }, ACS_RUN_CODE, -EINVAL, "no pyvenv.cfg", NULL },
        { "no memory limit: shared memory unbounded", "[limits]\nmemory = 0\n", { 0 }, ACS_RUN_EXEC, 0,
          "memfd      none with the run's memory cgroup, else none", NULL },
        { "a memory limit without a cgroup denies memfd", "[limits]\nmemory = 64M\n", { 0 }, ACS_RUN_EXEC, 0,
          "memfd      cgroup2 with the run's memory cgroup, else denied", NULL },
};

static void test_cases(void)
{
        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                const plan_case *c = &cases[i];
                acs_profile *prof = parse(c->profile);
                if (!prof) {
                        ok(0, "%s: profile parses", c->name);
                        continue;
                }
                acs_run_request req = { .kind = c->kind, .profile = prof, .opts = &c->opts, .code = "pass",
                                        .argv = c->kind == ACS_RUN_EXEC ? (char *[]){ "true", NULL } : NULL };
                acs_host_facts f;
                acs_error err;
                int r;
                facts_for(&req, &f);
                _cleanup_free_ char *text = plan_text(&req, &f, &err, &r);
                const char *where = r < 0 ? err.msg : text;
                ok(r == c->want_r && where && strstr(where, c->want_in) &&
                           (!c->want_not || !strstr(where, c->want_not)),
                   "%s", c->name);
                if (!(r == c->want_r && where && strstr(where, c->want_in)))
                        diag("r=%d want %d: %s", r, c->want_r, where ? where : "(null)");
                f.environ = NULL;
                acs_host_facts_done(&f);
                acs_profile_free(prof);
        }
}

/* ---- the mount table's order: the security argument of mounts.c ------------------ */

static size_t index_of(const acs_mount_op *ops, size_t n, acs_mount_op_kind k)
{
        for (size_t i = 0; i < n; i++)
                if (ops[i].kind == k)
                        return i;
        return (size_t)-1;
}

static void test_order(void)
{
        for (int fast = 0; fast <= 1; fast++) { /* fast: pid 1 execs acs-init */
                acs_bind binds[] = { { .src = "/usr", .dest = "/usr", .readonly = true, .is_dir = true },
                                     { .src = "/d", .dest = "/workspace/d", .is_dir = true },
                                     { .src = "/s", .dest = "/s", .socket = true } };
                acs_sandbox_cfg cfg = { .binds = binds, .n_binds = 3, .tmpfs = (char *[]){ "/tmp", NULL },
                                        .ws_mode = ACS_WS_OVERLAY, .file_name = "main.py" };
                acs_mount_op ops[64];
                ok(acs_mount_ops_max(&cfg) <= ELEMENTSOF(ops), "fast=%d: the table fits", fast);
                size_t n = acs_mount_ops(&cfg, fast, ops);
                ok(n <= acs_mount_ops_max(&cfg), "fast=%d: no more steps than acs_mount_ops_max", fast);
                ok(ops[0].kind == ACS_MOP_PRIVATE, "fast=%d: nothing is mounted before / is a slave", fast);
                size_t ws = index_of(ops, n, ACS_MOP_WORKSPACE), first_bind = index_of(ops, n, ACS_MOP_BIND);
                ok(ws < first_bind, "fast=%d: the workspace before the binds (a bind below it lands on the overlay)",
                   fast);
                ok(ops[first_bind + 2].kind == ACS_MOP_BIND && ops[first_bind + 2].index == 2,
                   "fast=%d: binds in the plan's order, sockets last", fast);
                size_t proc = index_of(ops, n, ACS_MOP_PROC), mask = index_of(ops, n, ACS_MOP_MASK_PROC),
                       pivot = index_of(ops, n, ACS_MOP_PIVOT), init = index_of(ops, n, ACS_MOP_INIT_BLOB);
                ok(proc < mask && mask < pivot, "fast=%d: procfs, then its masks, before pivot_root", fast);
                ok(fast ? init < pivot : init == (size_t)-1, "fast=%d: pid 1's image in scratch before the detach %s",
                   fast, fast ? "" : "(none without an embedded acs-init)");
                ok(ops[n - 1].kind == ACS_MOP_RO_ROOT && ops[n - 2].kind == ACS_MOP_PIVOT,
                   "fast=%d: / read-only last, right after pivot_root", fast);
                ok(index_of(ops, n, ACS_MOP_SCRIPT) < proc, "fast=%d: the script placed before /proc", fast);
        }
}

/* acs_plan_ro_layers: which read-only binds share their parent's overlay */
static void test_ro_layers(void)
{
        static const struct {
                const char *name;
                const char *src[6];
                int ro[6], dir[6], sock[6];
                int layer[6];
                const char *parents[3];
        } layer_cases[] = {
                { "two siblings share their parent", { "/etc/ssl", "/etc/alternatives" }, { 1, 1 }, { 1, 1 }, { 0, 0 },
                  { 0, 0 }, { "/etc" } },
                { "a lone bind keeps its own overlay", { "/usr", "/etc/ssl" }, { 1, 1 }, { 1, 1 }, { 0, 0 }, { -1, -1 }, { 0 } },
                { "nothing at / (the host root always has mounts below it)", { "/usr", "/opt" }, { 1, 1 }, { 1, 1 }, { 0, 0 },
                  { -1, -1 }, { 0 } },
                { "a read-write sibling does not count", { "/srv/a", "/srv/b" }, { 1, 0 }, { 1, 1 }, { 0, 0 }, { -1, -1 }, { 0 } },
                { "a file sibling does not count", { "/etc/ssl", "/etc/ld.so.cache" }, { 1, 1 }, { 1, 0 }, { 0, 0 },
                  { -1, -1 }, { 0 } },
                { "a socket is never from a layer", { "/run/a", "/run/b.sock" }, { 1, 1 }, { 1, 1 }, { 0, 1 }, { -1, -1 }, { 0 } },
                { "the same source twice is not a pair", { "/etc/ssl", "/etc/ssl" }, { 1, 1 }, { 1, 1 }, { 0, 0 },
                  { -1, -1 }, { 0 } },
                { "a relative or unclean source is never grouped", { "etc/a", "etc/b", "/x/../y/a", "/x/../y/b" },
                  { 1, 1, 1, 1 }, { 1, 1, 1, 1 }, { 0 }, { -1, -1, -1, -1 }, { 0 } },
                { "two parents, two layers, in the binds' order",
                  { "/usr/share/a", "/etc/ssl", "/usr/share/b", "/etc/fonts", "/usr" },
                  { 1, 1, 1, 1, 1 }, { 1, 1, 1, 1, 1 }, { 0 }, { 0, 1, 0, 1, -1 }, { "/usr/share", "/etc" } },
        };
        for (size_t c = 0; c < ELEMENTSOF(layer_cases); c++) {
                acs_bind b[6] = { 0 };
                size_t n = 0;
                for (; n < 6 && layer_cases[c].src[n]; n++)
                        b[n] = (acs_bind){ .src = (char *)layer_cases[c].src[n], .readonly = layer_cases[c].ro[n],
                                           .is_dir = layer_cases[c].dir[n], .socket = layer_cases[c].sock[n],
                                           .optional = true, .layer = 7 };
                char **layers = NULL;
                ok(acs_plan_ro_layers(b, n, &layers) == 0, "%s: plans", layer_cases[c].name);
                bool same = true;
                for (size_t i = 0; i < n; i++)
                        same = same && b[i].layer == layer_cases[c].layer[i];
                ok(same, "%s: each bind's layer", layer_cases[c].name);
                size_t np = 0;
                while (np < 3 && layer_cases[c].parents[np])
                        np++;
                bool parents = acs_strv_length(layers) == np;
                for (size_t i = 0; parents && i < np; i++)
                        parents = strcmp(layers[i], layer_cases[c].parents[i]) == 0;
                ok(parents, "%s: the layers' parents", layer_cases[c].name);
                acs_strv_free(layers);
        }
        /* a command line's --ro-bind (not optional): its own overlay, so that not
         * even its name shows in mountinfo */
        acs_bind cl[2] = { { .src = (char *)"/home/u/secret-a", .readonly = true, .is_dir = true },
                           { .src = (char *)"/home/u/secret-b", .readonly = true, .is_dir = true } };
        char **none = NULL;
        ok(acs_plan_ro_layers(cl, 2, &none) == 0 && !none && cl[0].layer == -1 && cl[1].layer == -1,
           "a command line's --ro-bind keeps its own overlay");
        /* at most ACS_MAX_RO_LAYERS: the rest keep an overlay each */
        char srcs[2 * (ACS_MAX_RO_LAYERS + 2)][32];
        acs_bind b[2 * (ACS_MAX_RO_LAYERS + 2)];
        for (size_t i = 0; i < ELEMENTSOF(b); i++) {
                snprintf(srcs[i], sizeof srcs[i], "/p%zu/%s", i / 2, i % 2 ? "b" : "a");
                b[i] = (acs_bind){ .src = srcs[i], .readonly = true, .is_dir = true, .optional = true };
        }
        char **layers = NULL;
        ok(acs_plan_ro_layers(b, ELEMENTSOF(b), &layers) == 0 && acs_strv_length(layers) == ACS_MAX_RO_LAYERS &&
                   b[2 * ACS_MAX_RO_LAYERS - 1].layer == ACS_MAX_RO_LAYERS - 1 && b[2 * ACS_MAX_RO_LAYERS].layer == -1,
           "at most %d shared layers; later pairs keep an overlay each", ACS_MAX_RO_LAYERS);
        acs_strv_free(layers);
}

int main(void)
{
        test_cases();
        test_order();
        test_ro_layers();
        const char *srcdir = getenv("ACS_SRCDIR");
        static const char *const shipped[] = { "default", "pure-math", "data", "shell", "unsafe-python" };
        for (size_t i = 0; i < ELEMENTSOF(shipped); i++) {
                if (srcdir)
                        golden(srcdir, shipped[i]);
                else
                        ok(1, "golden plan %s # SKIP ACS_SRCDIR not set", shipped[i]);
        }
        return tap_done();
}
