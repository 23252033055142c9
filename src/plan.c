/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The planner: profile + request + host facts -> plan (plan.h). No system
 * call here: every fact about the host arrives in acs_host_facts, gathered
 * by plan-facts.c, so the plan a run applies and the one `--dry-run` prints
 * are one computation, and tests/unit/test-plan.c pins it with golden files.
 */
#include <limits.h>
#include <string.h>
#include <sys/stat.h>

#include "loader-env.h"
#include "plan.h"
#include "run.h"
#include "profile-keys.h"
#include "scan.h"

/* The kernel's limit on one argv string, NUL included (MAX_ARG_STRLEN). */
#define ACS_MAX_ARG_STRLEN (32 * 4096)
#define ACS_BIG_CODE_NAME "main.py"
#define ACS_BIG_COMMAND_NAME "command.sh"

void acs_plan_done(acs_plan *p)
{
        acs_strv_free(p->argv);
        acs_strv_free(p->envp);
        acs_strv_free(p->tmpfs);
        acs_strv_free(p->bypass);
        for (size_t i = 0; i < p->n_binds; i++) {
                free(p->binds[i].src);
                free(p->binds[i].dest);
        }
        free(p->binds);
        acs_strv_free(p->ro_layers);
        free(p->file_data);
        free(p->file_name);
        free(p->venv_python);
        *p = (acs_plan){ 0 };
}

static const acs_path_fact *fact_for(const acs_host_facts *f, const char *path)
{
        for (size_t i = 0; i < f->n_paths; i++)
                if (strcmp(f->paths[i].path, path) == 0)
                        return &f->paths[i];
        return NULL;
}

/* A path the gathering did not look at: a bug between the two halves, said as one. */
static int no_fact(const char *path, acs_error *err)
{
        return acs_error_set(err, -ENOENT, "plan", "internal: no host fact for '%s'", path);
}

/* socket: a host unix socket the profile names in [filesystem] sockets */
static int add_bind(acs_plan *p, const acs_host_facts *facts, const char *src, const char *dest, bool ro,
                    bool optional, bool socket, acs_error *err)
{
        if (!acs_path_is_clean_abs(dest))
                return acs_error_set(err, -EINVAL, "usage", "bind destination '%s' must be an absolute path without '..'",
                                     dest);
        /* checked here for a clear message; opened inside the sandbox's namespace */
        const acs_path_fact *st = fact_for(facts, src);
        if (!st)
                return no_fact(src, err);
        if (st->err) {
                if (optional && st->err == ENOENT)
                        return 0;
                return acs_error_errno(err, -st->err, "mount", "cannot bind '%s'", src);
        }
        /* a host service: only through [filesystem] sockets (mounts.c checks again) */
        if (socket != !!S_ISSOCK(st->mode))
                return acs_error_set(err, -EPERM, "mount",
                                     socket ? "[filesystem] sockets: '%s' is not a unix socket"
                                            : "'%s' is a unix socket (a host service): a profile must name it in "
                                              "[filesystem] sockets",
                                     src);
        acs_bind *nb = realloc(p->binds, (p->n_binds + 1) * sizeof *nb);
        if (!nb)
                return -ENOMEM;
        p->binds = nb;
        nb[p->n_binds] = (acs_bind){ .src = strdup(src), .dest = strdup(dest), .readonly = ro,
                                     .is_dir = S_ISDIR(st->mode), .optional = optional, .socket = socket,
                                     .layer = -1 };
        p->n_binds++;
        if (!nb[p->n_binds - 1].src || !nb[p->n_binds - 1].dest)
                return -ENOMEM;
        return 0;
}

static const char *host_getenv(const acs_host_facts *f, const char *name)
{
        size_t n = strlen(name);
        for (char *const *e = f->environ; e && *e; e++)
                if (strncmp(*e, name, n) == 0 && (*e)[n] == '=')
                        return *e + n + 1;
        return NULL;
}

/* The sandbox's environment: nothing from the launcher but [env] keep. */
static int build_env(acs_plan *p, const acs_host_facts *facts, const acs_profile *prof, const acs_options *o)
{
        int r;
        for (char **k = prof->env_keep; k && *k; k++) {
                const char *v = host_getenv(facts, *k);
                if (v) {
                        _cleanup_free_ char *kv = NULL;
                        if (asprintf(&kv, "%s=%s", *k, v) < 0 || (r = acs_strv_push(&p->envp, kv)) < 0)
                                return -ENOMEM;
                }
        }
        char *const *sets[] = { prof->env_set, o ? o->setenv : NULL };
        for (size_t s = 0; s < ELEMENTSOF(sets); s++)
                for (char *const *kv = sets[s]; kv && *kv; kv++) {
                        size_t klen = strcspn(*kv, "=");
                        for (char **e = p->envp; e && *e; e++) /* later wins */
                                if (strncmp(*e, *kv, klen) == 0 && (*e)[klen] == '=') {
                                        **e = '\0';
                                }
                        if ((r = acs_strv_push(&p->envp, *kv)) < 0)
                                return r;
                }
        for (char **u = o ? o->unsetenv : NULL; u && *u; u++)
                for (char **e = p->envp; e && *e; e++)
                        if (strncmp(*e, *u, strlen(*u)) == 0 && (*e)[strlen(*u)] == '=')
                                **e = '\0';
        /* compact the blanked entries */
        size_t j = 0;
        for (size_t i = 0; p->envp && p->envp[i]; i++) {
                if (p->envp[i][0] == '\0')
                        free(p->envp[i]);
                else
                        p->envp[j++] = p->envp[i];
        }
        if (p->envp)
                p->envp[j] = NULL;
        else if (!(p->envp = calloc(1, sizeof(char *))))
                return -ENOMEM;
        return 0;
}

/* The script read by plan-facts.c, or the error reading it gave. */
static int take_source(const acs_host_facts *f, acs_plan *p, acs_error *err)
{
        p->file_size = f->file_size;
        if (f->file_r < 0) {
                if (err)
                        *err = f->file_err;
                return f->file_r;
        }
        p->file_len = f->file_len;
        if (!(p->file_data = malloc(f->file_len + 1)) || !(p->file_name = strdup(f->file_name)))
                return -ENOMEM;
        memcpy(p->file_data, f->file_data, f->file_len);
        p->file_data[f->file_len] = '\0';
        return 0;
}

/*
 * Text too long for one execve argument (an MCP call may carry megabytes)
 * becomes the read-only script /run/acs/NAME, whose path goes into argv.
 */
static int as_script(acs_plan *p, const char *text, const char *name)
{
        _cleanup_free_ char *inside = NULL;
        p->file_len = p->file_size = strlen(text);
        if (!(p->file_data = strdup(text)) || !(p->file_name = strdup(name)) ||
            asprintf(&inside, "/run/acs/%s", name) < 0 || acs_strv_push(&p->argv, inside) < 0)
                return -ENOMEM;
        p->script = p->argv[acs_strv_length(p->argv) - 1];
        return 0;
}

/* A command-line value may tighten a locked profile value, never loosen it. */
static int check_locked(const acs_profile *prof, const char *key, bool loosens, acs_error *err)
{
        if (loosens && acs_profile_is_locked(prof, key))
                return acs_error_set(err, -EPERM, "profile", "profile '%s' locks %s: the command line may not loosen it",
                                     prof->name, key);
        return 0;
}

/* Where a variable of the sandbox's environment came from, for messages. */
static const char *env_source(const acs_profile *prof, const acs_options *o, const char *kv, size_t n)
{
        char *const *lists[] = { o ? o->setenv : NULL, prof->env_set };
        const char *names[] = { "--setenv", "[env] set" };
        for (size_t l = 0; l < ELEMENTSOF(lists); l++)
                for (char *const *e = lists[l]; e && *e; e++)
                        if (strncmp(*e, kv, n + 1) == 0)
                                return names[l];
        return "[env] keep";
}

/*
 * Nothing runs before the scan (issue 18 item 6): a variable that makes the
 * loader or the interpreter load or run code (loader-env.h) enters a scanned
 * run only when the profile's [env] allow_loader names it, and the report
 * then says that the verdict does not cover everything that ran.
 */
static int check_loader_env(acs_plan *p, const acs_profile *prof, const acs_options *o, acs_error *err)
{
        bool python_env = !acs_python_flags_ignore_env(prof->python_flags);
        for (char **e = p->envp; e && *e; e++) {
                if (!acs_env_runs_code(*e, python_env))
                        continue;
                size_t n = strcspn(*e, "=");
                _cleanup_free_ char *name = strndup(*e, n);
                if (!name)
                        return -ENOMEM;
                if (!acs_strv_contains(prof->env_allow_loader, name))
                        return acs_error_set(err, -EPERM, "env",
                                             "%s %s: this variable makes the loader or the interpreter load or run "
                                             "code before the scan, which would not see it; profile '%s' passes it "
                                             "only when its [env] allow_loader names %s",
                                             env_source(prof, o, *e, n), name, prof->name ? prof->name : "?", name);
                if (acs_strv_push(&p->bypass, name) < 0)
                        return -ENOMEM;
        }
        return 0;
}

/*
 * [python] venv (or --venv): the environment bound read-only at its own
 * path and its bin/python3 as the interpreter. Its symlinks lead into the
 * read-only /usr; site (no -S) reads its pyvenv.cfg and adds its
 * site-packages. Only for Python runs; exec is unchanged.
 */
static int use_venv(acs_plan *p, const acs_host_facts *facts, const acs_profile *prof, const char *venv,
                    acs_error *err)
{
        _cleanup_free_ char *cfg = NULL;
        if (asprintf(&cfg, "%s/pyvenv.cfg", venv) < 0 || asprintf(&p->venv_python, "%s/bin/python3", venv) < 0)
                return -ENOMEM;
        const acs_path_fact *st = fact_for(facts, cfg);
        if (!st)
                return no_fact(cfg, err);
        if (st->err || !S_ISREG(st->mode))
                return acs_error_set(err, -EINVAL, "profile", "venv '%s': no pyvenv.cfg there, not a virtual environment",
                                     venv);
        for (char **f = prof->python_flags; f && *f; f++)
                if (strcmp(*f, "-S") == 0)
                        return acs_error_set(err, -EINVAL, "profile",
                                             "venv '%s': profile %s runs python with -S, which skips the venv; drop -S "
                                             "from [python] flags (profile 'data' does)",
                                             venv, prof->name);
        return add_bind(p, facts, venv, venv, true, false, false, err);
}

/* Command-line limits: a locked profile value may only be tightened. */
static int limit_overrides(const acs_profile *prof, const acs_options *o, acs_sandbox_cfg *c, acs_error *err)
{
        int r;
        c->rl_nproc = prof->processes;
        c->rl_fsize = prof->file_size;
        c->rl_nofile = prof->open_files;
        if (!o)
                return 0;
        if (o->has_processes) {
                if ((r = check_locked(prof, "processes", o->processes > prof->processes, err)) < 0)
                        return r;
                c->rl_nproc = o->processes;
        }
        if (o->has_open_files) {
                if ((r = check_locked(prof, "open_files", o->open_files > prof->open_files, err)) < 0)
                        return r;
                c->rl_nofile = o->open_files;
        }
        if (o->has_file_size) {
                bool loosens = prof->file_size > 0 && (o->file_size == 0 || o->file_size > prof->file_size);
                if ((r = check_locked(prof, "file_size", loosens, err)) < 0)
                        return r;
                c->rl_fsize = o->file_size;
        }
        return 0;
}

/*
 * Said here, with the path, rather than as an error from inside the sandbox:
 * an ordinary launcher's sandbox reads the workspace as the launcher's uid; a
 * root launcher's as its owner when that is an ordinary user (sandbox.c; a
 * root-owned one is reached through an idmapped mount, which needs no check).
 */
static int check_workspace(const acs_host_facts *facts, const char *path, acs_error *err)
{
        const acs_path_fact *st = fact_for(facts, path);
        if (!st)
                return no_fact(path, err);
        if (st->err)
                return acs_error_errno(err, -st->err, "workspace", "cannot use '%s' as the workspace", path);
        if (!S_ISDIR(st->mode))
                return acs_error_set(err, -ENOTDIR, "workspace", "workspace '%s' is not a directory", path);
        bool root = facts->euid_root;
        bool ok = !root ? st->access_ok
                : st->uid == 0 || st->gid == 0 || (st->mode & (S_IRUSR | S_IXUSR)) == (S_IRUSR | S_IXUSR);
        if (!ok)
                return acs_error_set(err, -EACCES, "workspace",
                                     "cannot use '%s' as the workspace: %s cannot read and search it (mode %04o)", path,
                                     root ? "its owner, whom the sandbox runs as," : "you", (unsigned)(st->mode & 07777));
        return 0;
}

/* The limits and the all-or-nothing settings the command line may change. */
static int plan_overrides(const acs_profile *prof, const acs_options *o, acs_plan *p, acs_error *err)
{
        acs_sandbox_cfg *c = &p->cfg;
        int r;
        p->timeout = prof->timeout;
        p->max_tokens = prof->max_tokens;
        c->net = prof->net;
        c->rl_as = prof->memory;
        if (o) {
                if (o->has_timeout) {
                        if ((r = check_locked(prof, "timeout", prof->timeout > 0 && (o->timeout == 0 || o->timeout > prof->timeout), err)) < 0)
                                return r;
                        p->timeout = o->timeout;
                }
                if (o->has_memory) {
                        if ((r = check_locked(prof, "memory", prof->memory > 0 && (o->memory == 0 || o->memory > prof->memory), err)) < 0)
                                return r;
                        c->rl_as = o->memory;
                }
                if (o->has_cpu) {
                        if ((r = check_locked(prof, "cpu", prof->cpu > 0 && (o->cpu == 0 || o->cpu > prof->cpu), err)) < 0)
                                return r;
                }
                if (o->has_max_tokens) {
                        if ((r = check_locked(prof, "max_tokens", o->max_tokens > prof->max_tokens, err)) < 0)
                                return r;
                        p->max_tokens = o->max_tokens;
                }
                if (o->has_net) {
                        if ((r = check_locked(prof, "net", o->net == ACS_NET_LOOPBACK && prof->net == ACS_NET_NONE, err)) < 0)
                                return r;
                        c->net = (acs_net_mode)o->net;
                }
                /* settings that are all-or-nothing: any use loosens them */
                if ((r = check_locked(prof, "bind", o->n_mounts > 0, err)) < 0 ||
                    (r = check_locked(prof, "env", o->setenv || o->unsetenv, err)) < 0 ||
                    (r = check_locked(prof, "workspace", o->workspace != NULL, err)) < 0 ||
                    (r = check_locked(prof, "apply", o->apply, err)) < 0)
                        return r;
        }
        c->hostname = prof->hostname ? prof->hostname : "sandbox";
        c->rl_cpu = o && o->has_cpu ? o->cpu : prof->cpu;
        if ((r = limit_overrides(prof, o, c, err)) < 0)
                return r;
        c->rl_as_fallback = prof->memory_rlimit == ACS_MEMRL_FALLBACK;
        c->seccomp_deny = prof->seccomp_deny;
        c->ws_mode = prof->workspace;
        c->ws_tree_fd = -1;
        c->cgroup_fd = -1;
        c->ws_size = prof->workspace_size;
        return 0;
}

/* Binds in their order: [filesystem] ro_bind, the command line's, sockets last. */
static int plan_binds(const acs_profile *prof, const acs_options *o, const acs_host_facts *facts, acs_plan *p,
                      acs_error *err)
{
        int r;
        for (char **b = prof->ro_bind; b && *b; b++)
                if ((r = add_bind(p, facts, *b, *b, true, true, false, err)) < 0)
                        return r;
        p->tmpfs = acs_strv_copy(prof->tmpfs ? prof->tmpfs : (char *[]){ NULL });
        if (!p->tmpfs)
                return -ENOMEM;
        for (size_t i = 0; o && i < o->n_mounts; i++) {
                const acs_mount_opt *m = &o->mounts[i];
                if (m->kind == ACS_MOUNT_TMPFS)
                        r = acs_strv_push(&p->tmpfs, m->dest);
                else
                        r = add_bind(p, facts, m->src, m->dest, m->kind == ACS_MOUNT_RO_BIND, false, false, err);
                if (r < 0)
                        return r;
        }
        /* last: on top of the binds they may lie in */
        for (char **sk = prof->sockets; sk && *sk; sk++)
                if ((r = add_bind(p, facts, *sk, *sk, false, false, true, err)) < 0)
                        return r;
        return 0;
}

/* exec: COMMAND ARGS..., or SHELL FILE for a SHELL -c SCRIPT over the argument limit */
static int plan_exec_argv(char *const *args, acs_plan *p, acs_error *err)
{
        int r;
        if (!args || !args[0])
                return acs_error_set(err, -EINVAL, "usage", "nothing to execute");
        if (acs_strv_length(args) == 3 && strcmp(args[1], "-c") == 0 && strlen(args[2]) >= ACS_MAX_ARG_STRLEN) {
                if ((r = acs_strv_push(&p->argv, args[0])) < 0 || (r = as_script(p, args[2], ACS_BIG_COMMAND_NAME)) < 0)
                        return r;
                p->script = NULL; /* not Python: nothing scans it */
        } else
                p->argv = acs_strv_copy(args);
        return 0;
}

/* argv: interpreter flags... (/run/acs/NAME | -c CODE) ARGS...,
 * scanning: interpreter flags... -c BOOT (/run/acs/NAME | CODE) ARGS... */
static int plan_python_argv(const acs_run_request *req, const acs_host_facts *facts, const int scan_fds[2],
                            acs_plan *p, acs_error *err)
{
        const acs_profile *prof = req->profile;
        char *const *args = req->argv;
        int r;
        const char *interp = p->venv_python ? p->venv_python : prof->interpreter ? prof->interpreter : ACS_PYTHON;
        if ((r = acs_strv_push(&p->argv, interp)) < 0)
                return r;
        for (char **f = prof->python_flags; f && *f; f++)
                if ((r = acs_strv_push(&p->argv, *f)) < 0)
                        return r;
        if (req->warm && !p->scan)
                return acs_error_set(err, -EOPNOTSUPP, "pool", "a pooled sandbox needs the in-sandbox scan "
                                     "(profile %s has [scan] mode = off)", prof->name);
        if (p->scan) {
                char boot[256];
                if ((req->warm ? acs_scan_boot_warm(boot, sizeof boot, scan_fds[0], scan_fds[1], req->session)
                               : acs_scan_boot(boot, sizeof boot, scan_fds[0], scan_fds[1])) >= (int)sizeof boot)
                        return -ENOBUFS;
                if ((r = acs_strv_push(&p->argv, "-c")) < 0 || (r = acs_strv_push(&p->argv, boot)) < 0)
                        return r;
                p->boot_arg = (int)acs_strv_length(p->argv) - 1;
        }
        if (req->warm) {
                /* the code comes later, through the scan socket (acs_scan_boot_warm) */
        } else if (req->kind == ACS_RUN_FILE) {
                if (!args || !args[0])
                        return acs_error_set(err, -EINVAL, "usage", "no script given");
                if ((r = take_source(facts, p, err)) < 0)
                        return r;
                _cleanup_free_ char *inside = NULL;
                if (asprintf(&inside, "/run/acs/%s", p->file_name) < 0 || (r = acs_strv_push(&p->argv, inside)) < 0)
                        return -ENOMEM;
                p->script = p->argv[acs_strv_length(p->argv) - 1];
                args++;
        } else if (req->code && strlen(req->code) >= ACS_MAX_ARG_STRLEN) {
                if ((r = as_script(p, req->code, ACS_BIG_CODE_NAME)) < 0)
                        return r;
        } else {
                if ((!p->scan && (r = acs_strv_push(&p->argv, "-c")) < 0) ||
                    (r = acs_strv_push(&p->argv, req->code ? req->code : "")) < 0)
                        return r;
        }
        for (; args && *args; args++)
                if ((r = acs_strv_push(&p->argv, *args)) < 0)
                        return r;
        return 0;
}

int acs_plan_build(const acs_run_request *req, const acs_host_facts *facts, const int scan_fds[2],
                   acs_plan *p, acs_error *err)
{
        const acs_profile *prof = req->profile;
        const acs_options *o = req->opts;
        acs_sandbox_cfg *c = &p->cfg;
        int r;

        p->boot_arg = -1;
        p->scan = scan_fds[0] != -1;
        if ((r = plan_overrides(prof, o, p, err)) < 0 || (r = plan_binds(prof, o, facts, p, err)) < 0)
                return r;
        /* a session's cpu is per call (session.c samples it): each process's RLIMIT_CPU bounds the session */
        if (req->session && p->cfg.rl_cpu)
                p->cfg.rl_cpu_total = p->cfg.rl_cpu * ACS_SESSION_CPU_CALLS + 1;
        if (o && o->workspace) {
                if ((r = check_workspace(facts, o->workspace, err)) < 0)
                        return r;
                c->workspace = o->workspace;
        }
        if ((r = build_env(p, facts, prof, o)) < 0)
                return r;
        if (p->scan && (r = check_loader_env(p, prof, o, err)) < 0)
                return r;
        const char *venv = o && o->venv ? o->venv : prof->venv;
        if (venv && req->kind != ACS_RUN_EXEC && (r = use_venv(p, facts, prof, venv, err)) < 0)
                return r;
        r = req->kind == ACS_RUN_EXEC ? plan_exec_argv(req->argv, p, err) : plan_python_argv(req, facts, scan_fds, p, err);
        if (r < 0)
                return r;
        if (!p->argv)
                return -ENOMEM;

        c->argv = p->argv;
        c->envp = p->envp;
        c->tmpfs = p->tmpfs;
        if ((r = acs_plan_ro_layers(p->binds, p->n_binds, &p->ro_layers)) < 0)
                return r;
        c->binds = p->binds;
        c->n_binds = p->n_binds;
        c->ro_layers = p->ro_layers;
        c->n_ro_layers = acs_strv_length(p->ro_layers);
        c->file_name = p->file_name;
        c->file_data = p->file_data;
        c->file_len = p->file_len;
        c->chdir = (o && o->chdir) ? o->chdir : (c->ws_mode == ACS_WS_NONE ? "/" : "/workspace");
        c->scan_fd = scan_fds[0];
        c->scan_module_fd = scan_fds[1];
        c->verbose = o && o->verbose > 0;
        c->trace_fd = -1;
        return 0;
}

/* ---- shared read-only layers -------------------------------------------- */

/* The parent of a clean absolute path other than /, or false. */
static bool parent_of(const char *src, char *buf, size_t len)
{
        const char *slash = strrchr(src, '/');
        if (!acs_path_is_clean_abs(src) || !slash || slash == src || (size_t)(slash - src) >= len)
                return false;
        memcpy(buf, src, (size_t)(slash - src));
        buf[slash - src] = '\0';
        return true;
}

/* the profile's read-only directories (the only optional binds): system
 * paths, whose names are no secret -- a bind from a layer shows its name
 * below the parent in /proc/self/mountinfo, and a command line's --ro-bind
 * must not show even that of its host path */
static bool layer_candidate(const acs_bind *b)
{
        return b->readonly && b->is_dir && !b->socket && b->optional;
}

int acs_plan_ro_layers(acs_bind *binds, size_t n, char ***ret)
{
        char a[PATH_MAX], b[PATH_MAX];
        size_t n_layers = 0;
        *ret = NULL;
        for (size_t i = 0; i < n; i++)
                binds[i].layer = -1;
        for (size_t i = 0; i < n && n_layers < ACS_MAX_RO_LAYERS; i++) {
                if (binds[i].layer >= 0 || !layer_candidate(&binds[i]) || !parent_of(binds[i].src, a, sizeof a))
                        continue;
                /* a second candidate in the same parent, not the same source twice */
                bool shared = false;
                for (size_t j = i + 1; j < n; j++)
                        if (layer_candidate(&binds[j]) && parent_of(binds[j].src, b, sizeof b) && strcmp(a, b) == 0 &&
                            strcmp(binds[i].src, binds[j].src) != 0)
                                shared = true;
                if (!shared)
                        continue;
                int r = acs_strv_push(ret, a);
                if (r < 0) {
                        acs_strv_free(*ret);
                        *ret = NULL;
                        return r;
                }
                for (size_t j = i; j < n; j++)
                        if (layer_candidate(&binds[j]) && parent_of(binds[j].src, b, sizeof b) && strcmp(a, b) == 0)
                                binds[j].layer = (int)n_layers;
                n_layers++;
        }
        return 0;
}

/* ---- the mount table ---------------------------------------------------- */

size_t acs_mount_ops_max(const acs_sandbox_cfg *cfg)
{
        return 16 + acs_strv_length(cfg->tmpfs) + 1 + cfg->n_binds;
}

/*
 * The order is the security argument (mounts.c says why for each step):
 * nothing propagates back before anything is mounted; the workspace before
 * the binds, so a bind below /workspace lands on the overlay; procfs from
 * inside the new pid namespace before the old root goes; the /proc masks
 * after procfs; pid 1's image placed in W before W is detached with the old
 * root; / read-only last.
 */
size_t acs_mount_ops(const acs_sandbox_cfg *cfg, bool init_image, acs_mount_op *ops)
{
        size_t n = 0, nt = acs_strv_length(cfg->tmpfs);
        ops[n++] = (acs_mount_op){ ACS_MOP_PRIVATE, 0, "/" };
        ops[n++] = (acs_mount_op){ ACS_MOP_SCRATCH, 0, NULL };
        ops[n++] = (acs_mount_op){ ACS_MOP_ROOT, 0, "/" };
        ops[n++] = (acs_mount_op){ ACS_MOP_EMPTY, 0, NULL };
        ops[n++] = (acs_mount_op){ ACS_MOP_ETC, 0, "/etc" };
        ops[n++] = (acs_mount_op){ ACS_MOP_DEV, 0, "/dev" };
        /* the profile's tmpfs list (usually /tmp), then /dev/shm always */
        for (size_t i = 0; i <= nt; i++)
                ops[n++] = (acs_mount_op){ ACS_MOP_TMPFS, i, i < nt ? cfg->tmpfs[i] : "/dev/shm" };
        ops[n++] = (acs_mount_op){ ACS_MOP_WORKSPACE, 0, cfg->ws_mode == ACS_WS_NONE ? NULL : "/workspace" };
        for (size_t i = 0; i < cfg->n_binds; i++)
                ops[n++] = (acs_mount_op){ ACS_MOP_BIND, i, cfg->binds[i].dest };
        ops[n++] = (acs_mount_op){ ACS_MOP_USR_LINKS, 0, NULL };
        if (cfg->file_name)
                ops[n++] = (acs_mount_op){ ACS_MOP_SCRIPT, 0, "/run/acs" };
        ops[n++] = (acs_mount_op){ ACS_MOP_PROC, 0, "/proc" };
        ops[n++] = (acs_mount_op){ ACS_MOP_MASK_PROC, 0, "/proc" };
        if (init_image)
                ops[n++] = (acs_mount_op){ ACS_MOP_INIT_BLOB, 0, NULL };
        ops[n++] = (acs_mount_op){ ACS_MOP_PIVOT, 0, "/" };
        ops[n++] = (acs_mount_op){ ACS_MOP_RO_ROOT, 0, "/" };
        return n;
}

/* ---- shared memory bounds (the seccomp program depends on them) ---------- */

acs_shm_bound acs_plan_memfd(const acs_sandbox_cfg *cfg, bool mem_cgroup)
{
        return !cfg->rl_as ? ACS_SHM_UNLIMITED : mem_cgroup ? ACS_SHM_CGROUP : ACS_SHM_DENIED;
}

acs_shm_bound acs_plan_sysv(const acs_sandbox_cfg *cfg, bool mem_cgroup, bool root)
{
        return !cfg->rl_as ? ACS_SHM_UNLIMITED
             : mem_cgroup  ? ACS_SHM_CGROUP
             : root        ? ACS_SHM_IPC_LIMITS
                           : ACS_SHM_DENIED;
}

const char *acs_shm_bound_to_string(acs_shm_bound b)
{
        switch (b) {
        case ACS_SHM_CGROUP: return "cgroup2";
        case ACS_SHM_IPC_LIMITS: return "ipc-limits";
        case ACS_SHM_DENIED: return "denied";
        case ACS_SHM_UNLIMITED:
        default: return "none";
        }
}
