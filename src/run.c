/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The engine: profile + options -> plan -> sandbox -> supervise -> report.
 * Both the CLI and the MCP server call acs_run(); it never exits and never
 * prints (except the live output stream the caller asked for).
 */
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>

#include "apply-policy.h"
#include "cgroup.h"
#include "diff.h"
#include "input.h"
#include "loader-env.h"
#include "profile-keys.h"
#include "run.h"
#include "scan-policy.h"
#include "scan.h"
#include "supervise.h"

extern char **environ;

/* The kernel's limit on one argv string, NUL included (MAX_ARG_STRLEN). */
#define ACS_MAX_ARG_STRLEN (32 * 4096)
#define ACS_BIG_CODE_NAME "main.py"
#define ACS_BIG_COMMAND_NAME "command.sh"

typedef struct plan {
        acs_sandbox_cfg cfg;
        char **argv;
        char **envp;
        char **tmpfs;
        acs_bind *binds;
        size_t n_binds;
        char *file_data;
        size_t file_len;
        char *file_name;
        uint64_t file_size;   /* as fstat saw it, also when over max_source */
        const char *script;   /* /run/acs/NAME in argv (borrowed), or NULL */
        char *venv_python;    /* [python] venv: VENV/bin/python3 */
        double timeout;
        uint64_t max_tokens;
        char **bypass;        /* [env] allow_loader variables in envp of a scanned run */
} plan;

static void plan_done(plan *p)
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
        free(p->file_data);
        free(p->file_name);
        free(p->venv_python);
}

/* socket: a host unix socket the profile names in [filesystem] sockets */
static int add_bind(plan *p, const char *src, const char *dest, bool ro, bool optional, bool socket,
                    acs_error *err)
{
        struct stat st;
        if (!acs_path_is_clean_abs(dest))
                return acs_error_set(err, -EINVAL, "usage", "bind destination '%s' must be an absolute path without '..'",
                                     dest);
        /* checked here for a clear message; opened inside the sandbox's namespace */
        if (stat(src, &st) < 0) {
                if (optional && errno == ENOENT)
                        return 0;
                return acs_error_errno(err, -errno, "mount", "cannot bind '%s'", src);
        }
        /* a host service: only through [filesystem] sockets (mounts.c checks again) */
        if (socket != !!S_ISSOCK(st.st_mode))
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
                                     .is_dir = S_ISDIR(st.st_mode), .optional = optional, .socket = socket };
        p->n_binds++;
        if (!nb[p->n_binds - 1].src || !nb[p->n_binds - 1].dest)
                return -ENOMEM;
        return 0;
}

/* The sandbox's environment: nothing from the launcher but [env] keep. */
static int build_env(plan *p, const acs_profile *prof, const acs_options *o)
{
        int r;
        for (char **k = prof->env_keep; k && *k; k++) {
                const char *v = getenv(*k);
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

static int read_source(const char *path, uint64_t max, plan *p, acs_error *err)
{
        /* O_NONBLOCK: a FIFO given as the script must be an error, not a hang
         * in open() waiting for a writer (the fstat below refuses it) */
        _cleanup_close_ int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
        if (fd < 0 && errno == ENOENT && !strchr(path, '/') && acs_cli_is_subcommand(path))
                /* `acs-launch -v exec ...`: the options came first */
                return acs_error_set(err, -ENOENT, "usage",
                                     "no file '%s' to run; for the subcommand, put it first and its options "
                                     "after it: acs-launch %s [OPTIONS] ...",
                                     path, path);
        if (fd < 0)
                return acs_error_errno(err, -errno, "input", "cannot open '%s'", path);
        struct stat st;
        if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode))
                return acs_error_set(err, -EINVAL, "input", "'%s' is not a regular file", path);
        p->file_size = (uint64_t)st.st_size;
        if (fcntl(fd, F_SETFL, 0) < 0)
                return acs_error_errno(err, -errno, "input", "reading '%s'", path);
        if (max && (uint64_t)st.st_size > max)
                return acs_error_set(err, -EFBIG, "input", "'%s' is %lld bytes, over max_source %llu",
                                     path, (long long)st.st_size, (unsigned long long)max);
        size_t cap = (size_t)st.st_size, len = 0;
        char *buf = malloc(cap + 1);
        if (!buf)
                return -ENOMEM;
        for (;;) {
                ssize_t n = read(fd, buf + len, cap - len);
                if (n < 0 && errno == EINTR)
                        continue;
                if (n < 0) {
                        free(buf);
                        return acs_error_errno(err, -errno, "input", "reading '%s'", path);
                }
                if (n == 0)
                        break;
                len += (size_t)n;
                if (len == cap)
                        break;
        }
        buf[len] = '\0';
        p->file_data = buf;
        p->file_len = len;
        const char *base = strrchr(path, '/');
        p->file_name = strdup(base ? base + 1 : path);
        return p->file_name ? 0 : -ENOMEM;
}

/*
 * Text too long for one execve argument (an MCP call may carry megabytes)
 * becomes the read-only script /run/acs/NAME, whose path goes into argv.
 */
static int as_script(plan *p, const char *text, const char *name)
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
static int check_loader_env(plan *p, const acs_profile *prof, const acs_options *o, acs_error *err)
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
static int use_venv(plan *p, const acs_profile *prof, const char *venv, acs_error *err)
{
        _cleanup_free_ char *cfg = NULL;
        struct stat st;
        if (asprintf(&cfg, "%s/pyvenv.cfg", venv) < 0 || asprintf(&p->venv_python, "%s/bin/python3", venv) < 0)
                return -ENOMEM;
        if (stat(cfg, &st) < 0 || !S_ISREG(st.st_mode))
                return acs_error_set(err, -EINVAL, "profile", "venv '%s': no pyvenv.cfg there, not a virtual environment",
                                     venv);
        for (char **f = prof->python_flags; f && *f; f++)
                if (strcmp(*f, "-S") == 0)
                        return acs_error_set(err, -EINVAL, "profile",
                                             "venv '%s': profile %s runs python with -S, which skips the venv; drop -S "
                                             "from [python] flags (profile 'data' does)",
                                             venv, prof->name);
        return add_bind(p, venv, venv, true, false, false, err);
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
static int check_workspace(const char *path, acs_error *err)
{
        struct stat st;
        if (stat(path, &st) < 0)
                return acs_error_errno(err, -errno, "workspace", "cannot use '%s' as the workspace", path);
        if (!S_ISDIR(st.st_mode))
                return acs_error_set(err, -ENOTDIR, "workspace", "workspace '%s' is not a directory", path);
        bool root = geteuid() == 0;
        bool ok = !root ? faccessat(AT_FDCWD, path, R_OK | X_OK, AT_EACCESS) == 0
                : st.st_uid == 0 || st.st_gid == 0 || (st.st_mode & (S_IRUSR | S_IXUSR)) == (S_IRUSR | S_IXUSR);
        if (!ok)
                return acs_error_set(err, -EACCES, "workspace",
                                     "cannot use '%s' as the workspace: %s cannot read and search it (mode %04o)", path,
                                     root ? "its owner, whom the sandbox runs as," : "you", (unsigned)(st.st_mode & 07777));
        return 0;
}

/* scan_fds: -1 for no scan, else the sandbox's scan socket end and module fd */
static int build_plan(const acs_run_request *req, const int scan_fds[2], plan *p, acs_error *err)
{
        const acs_profile *prof = req->profile;
        const acs_options *o = req->opts;
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

        for (char **b = prof->ro_bind; b && *b; b++)
                if ((r = add_bind(p, *b, *b, true, true, false, err)) < 0)
                        return r;
        p->tmpfs = acs_strv_copy(prof->tmpfs ? prof->tmpfs : (char *[]){ NULL });
        if (!p->tmpfs)
                return -ENOMEM;
        for (size_t i = 0; o && i < o->n_mounts; i++) {
                const acs_mount_opt *m = &o->mounts[i];
                if (m->kind == ACS_MOUNT_TMPFS)
                        r = acs_strv_push(&p->tmpfs, m->dest);
                else
                        r = add_bind(p, m->src, m->dest, m->kind == ACS_MOUNT_RO_BIND, false, false, err);
                if (r < 0)
                        return r;
        }
        /* last: on top of the binds they may lie in */
        for (char **sk = prof->sockets; sk && *sk; sk++)
                if ((r = add_bind(p, *sk, *sk, false, false, true, err)) < 0)
                        return r;
        if (o && o->workspace) {
                if ((r = check_workspace(o->workspace, err)) < 0)
                        return r;
                c->workspace = o->workspace;
        }
        if ((r = build_env(p, prof, o)) < 0)
                return r;
        if (scan_fds[0] >= 0 && (r = check_loader_env(p, prof, o, err)) < 0)
                return r;
        const char *venv = o && o->venv ? o->venv : prof->venv;
        if (venv && req->kind != ACS_RUN_EXEC && (r = use_venv(p, prof, venv, err)) < 0)
                return r;

        /* argv: interpreter flags... (/run/acs/NAME | -c CODE | COMMAND) ARGS...,
         * scanning: interpreter flags... -c BOOT (/run/acs/NAME | CODE) ARGS... */
        bool scan = scan_fds[0] >= 0;
        char *const *args = req->argv;
        if (req->kind == ACS_RUN_EXEC) {
                if (!args || !args[0])
                        return acs_error_set(err, -EINVAL, "usage", "nothing to execute");
                if (acs_strv_length(args) == 3 && strcmp(args[1], "-c") == 0 &&
                    strlen(args[2]) >= ACS_MAX_ARG_STRLEN) {
                        /* SHELL -c SCRIPT over the argument limit: SHELL FILE */
                        if ((r = acs_strv_push(&p->argv, args[0])) < 0 ||
                            (r = as_script(p, args[2], ACS_BIG_COMMAND_NAME)) < 0)
                                return r;
                        p->script = NULL; /* not Python: nothing scans it */
                } else
                        p->argv = acs_strv_copy(args);
        } else {
                const char *interp = p->venv_python ? p->venv_python
                                   : prof->interpreter ? prof->interpreter : ACS_PYTHON;
                if ((r = acs_strv_push(&p->argv, interp)) < 0)
                        return r;
                for (char **f = prof->python_flags; f && *f; f++)
                        if ((r = acs_strv_push(&p->argv, *f)) < 0)
                                return r;
                if (scan) {
                        char boot[256];
                        if (acs_scan_boot(boot, sizeof boot, scan_fds[0], scan_fds[1]) >= (int)sizeof boot)
                                return -ENOBUFS;
                        if ((r = acs_strv_push(&p->argv, "-c")) < 0 || (r = acs_strv_push(&p->argv, boot)) < 0)
                                return r;
                }
                if (req->kind == ACS_RUN_FILE) {
                        if (!args || !args[0])
                                return acs_error_set(err, -EINVAL, "usage", "no script given");
                        if ((r = read_source(args[0], prof->max_source, p, err)) < 0)
                                return r;
                        _cleanup_free_ char *inside = NULL;
                        if (asprintf(&inside, "/run/acs/%s", p->file_name) < 0 ||
                            (r = acs_strv_push(&p->argv, inside)) < 0)
                                return -ENOMEM;
                        p->script = p->argv[acs_strv_length(p->argv) - 1];
                        args++;
                } else if (req->code && strlen(req->code) >= ACS_MAX_ARG_STRLEN) {
                        if ((r = as_script(p, req->code, ACS_BIG_CODE_NAME)) < 0)
                                return r;
                } else {
                        if ((!scan && (r = acs_strv_push(&p->argv, "-c")) < 0) ||
                            (r = acs_strv_push(&p->argv, req->code ? req->code : "")) < 0)
                                return r;
                }
                for (; args && *args; args++)
                        if ((r = acs_strv_push(&p->argv, *args)) < 0)
                                return r;
        }
        if (!p->argv)
                return -ENOMEM;

        c->argv = p->argv;
        c->envp = p->envp;
        c->tmpfs = p->tmpfs;
        c->binds = p->binds;
        c->n_binds = p->n_binds;
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

static void fill_limits(acs_report *rep, const plan *p)
{
        rep->limits.timeout_s = p->timeout;
        rep->limits.memory = p->cfg.rl_as;
        rep->limits.processes = p->cfg.rl_nproc;
        rep->limits.cpu_s = p->cfg.rl_cpu;
        rep->limits.file_size = p->cfg.rl_fsize;
        rep->limits.open_files = p->cfg.rl_nofile;
        /* rlimits always; acs_run says cgroup2 where the run's cgroup sets the limit too */
        rep->limits.memory_enforced = p->cfg.rl_as ? "rlimit" : "none";
        rep->limits.processes_enforced = p->cfg.rl_nproc ? "rlimit" : "none";
        /* the sandbox's total, sampled from init's process tree unless a cgroup counts it */
        rep->limits.cpu_enforced = p->cfg.rl_cpu ? "sampled" : "none";
        rep->limits.tmpfs_enforced = "size";
}

/* How the sandbox bounded what can be pinned outside an address space. */
static const char *shm_enforced(acs_shm_bound b)
{
        switch (b) {
        case ACS_SHM_CGROUP: return "cgroup2";
        case ACS_SHM_IPC_LIMITS: return "ipc-limits";
        case ACS_SHM_DENIED: return "denied";
        case ACS_SHM_UNLIMITED:
        default: return "none";
        }
}

/* The report's confinement and enforcement facts, once the sandbox exists. */
static void fill_confinement(acs_report *rep, const acs_sandbox *sb, const acs_cgroup *cg)
{
        rep->confinement.present = true;
        rep->confinement.landlock_abi = sb->landlock_abi;
        if (sb->in_cgroup) {
                /* honest: say cgroup2 only for the limits this cgroup really sets */
                if (cg->memory)
                        rep->limits.memory_enforced = "cgroup2";
                if (cg->pids)
                        rep->limits.processes_enforced = "cgroup2";
                if (rep->limits.cpu_s)
                        rep->limits.cpu_enforced = "cgroup2";
                rep->confinement.cgroup = strdup(cg->path);
        }
        rep->limits.memfd_enforced = shm_enforced(sb->memfd);
        rep->limits.sysv_enforced = shm_enforced(sb->sysv);
}

/*
 * A CPU-limit kill, from kernel evidence only: the supervisor's own kill at
 * the sandbox's total, or the program killed by its RLIMIT_CPU backstop
 * (SIGKILL at the hard limit, SIGXCPU at the soft one) after using at least
 * the limit itself (its rusage from init's wait4, which it cannot forge).
 */
static bool cpu_limit_kill(const acs_report *rep, const acs_supervise_out *so)
{
        if (so->cpu_killed)
                return true;
        int64_t limit_us = (int64_t)rep->limits.cpu_s * 1000000;
        return limit_us > 0 && rep->status == ACS_STATUS_SIGNALED &&
               (rep->signal == SIGKILL || rep->signal == SIGXCPU) && so->program_cpu_us >= limit_us;
}

static void classify(acs_report *rep, const acs_supervise_out *so)
{
        if (so->timed_out) {
                rep->status = ACS_STATUS_TIMEOUT;
                rep->exit_code = 124;
                rep->signal = SIGKILL;
                return;
        }
        if (so->child_failed) {
                rep->status = ACS_STATUS_ERROR;
                rep->exit_code = so->child_err.exit_status ?: 125;
                free(rep->error);
                rep->error = strdup(so->child_err.msg);
                return;
        }
        if (!so->have_status) {
                rep->status = ACS_STATUS_SIGNALED;
                rep->signal = so->launcher_signal ?: SIGKILL;
                rep->exit_code = 128 + rep->signal;
                return;
        }
        int st = so->wait_status;
        if (WIFSIGNALED(st)) {
                rep->status = ACS_STATUS_SIGNALED;
                rep->signal = WTERMSIG(st);
                rep->exit_code = 128 + rep->signal;
        } else {
                rep->status = ACS_STATUS_EXITED;
                rep->exit_code = WEXITSTATUS(st);
        }
}

/* Do fds a and b write to the same file or terminal? */
static bool same_file(int a, int b)
{
        struct stat sa, sb;
        return fstat(a, &sa) == 0 && fstat(b, &sb) == 0 && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

static int open_pipe(int fds[2], acs_error *err)
{
        if (pipe2(fds, O_CLOEXEC) < 0)
                return acs_error_errno(err, -errno, "io", "pipe");
        fcntl(fds[0], F_SETFL, O_NONBLOCK);
        return 0;
}

/*
 * The scan channel: a socket pair whose sandbox end (fds[1], > 2) the
 * scanner reads the policy from and writes the verdict to.
 */
static int open_scan_channel(int fds[2], acs_error *err)
{
        if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) < 0)
                return acs_error_errno(err, -errno, "scan", "socketpair");
        int r = acs_fd_above_stdio(fds[1]); /* the program's stdio will take 0-2 */
        fds[1] = r < 0 ? -1 : r;
        return r < 0 ? acs_error_errno(err, r, "scan", "fcntl") : 0;
}

/*
 * The policy is written before the sandbox starts, whole (it is far below
 * the socket buffer), and our writing side shut, so the scanner reads to
 * EOF; our end is then non-blocking for the supervisor, which reads the
 * verdict. Findings name a script by its path inside the sandbox.
 */
static int send_scan_policy(int fd, const acs_profile *prof, const plan *p, acs_error *err)
{
        _cleanup_free_ char *pol = NULL;
        size_t len = 0;
        int r;
        if ((r = acs_scan_policy_pack(prof, p->script ? p->script : "<string>", !p->script, &pol, &len)) < 0)
                return acs_error_set(err, r, "scan", r == -E2BIG ? "the profile's [scan] lists are too long (over %d KiB)"
                                                                 : "out of memory", ACS_SCAN_POLICY_MAX / 1024);
        if ((r = acs_write_all(fd, pol, len)) < 0)
                return acs_error_errno(err, r, "scan", "passing the policy");
        if (shutdown(fd, SHUT_WR) < 0)
                return acs_error_errno(err, -errno, "scan", "shutdown");
        fcntl(fd, F_SETFL, O_NONBLOCK);
        return 0;
}

/*
 * A script over max_source is refused with the scanner's own finding (the
 * launcher never reads more of it), so `check` and a run agree.
 */
static int refuse_too_large(acs_report *rep, const acs_profile *prof, uint64_t size)
{
        acs_finding *f = calloc(1, sizeof *f);
        if (!f)
                return -ENOMEM;
        *f = (acs_finding){ .rule = strdup("source-too-large"), .name = strdup("max_source"), .line = 1, .col = 0 };
        if (asprintf(&f->message, "the source is longer than max_source of profile %s (%llu > %llu bytes)",
                     prof->name ? prof->name : "?", (unsigned long long)size, (unsigned long long)prof->max_source) < 0)
                f->message = NULL;
        acs_scan_result_done(&rep->scan);
        rep->scan = (acs_scan_result){ .verdict = ACS_VERDICT_REJECT, .findings = f, .n_findings = 1 };
        if (!f->rule || !f->name || !f->message)
                return -ENOMEM; /* rep owns f: freed with the report */
        rep->status = ACS_STATUS_REJECTED;
        rep->exit_code = 126;
        return 0;
}

static void close_pair(int fds[2])
{
        closep(&fds[0]);
        closep(&fds[1]);
        fds[0] = fds[1] = -1;
}

/*
 * --apply that left changes unwritten (a conflict, an unsafe path, a failed
 * write; protected entries and special files are skipped by design) ends the
 * run with status error and exit status 125: the user asked for something
 * acs-launch could not do. The program's own status stays in the message.
 */
static void apply_outcome(acs_report *rep)
{
        const acs_apply_result *a = &rep->apply;
        if (!a->n_conflicts && !a->n_unsafe && !a->n_failed)
                return;
        char how[64], *msg = NULL;
        if (rep->status == ACS_STATUS_EXITED)
                snprintf(how, sizeof how, "exited with status %d", rep->exit_code);
        else
                snprintf(how, sizeof how, "ended with status %s (exit status %d)", acs_status_to_string(rep->status),
                         rep->exit_code);
        if (asprintf(&msg, "the program %s, but --apply left changes unwritten: %zu conflict%s, %zu unsafe path%s, "
                     "%zu failed (the apply list in the report says which)", how, a->n_conflicts,
                     a->n_conflicts == 1 ? "" : "s", a->n_unsafe, a->n_unsafe == 1 ? "" : "s", a->n_failed) < 0)
                msg = NULL;
        free(rep->error);
        rep->error = msg;
        rep->status = ACS_STATUS_ERROR;
        rep->exit_code = 125;
}

/*
 * After the program ended and before the layers go away: classify the upper
 * layer, then the patch, keep and apply the user asked for. patch_fd: the
 * --patch FILE opened before the run, or -1.
 */
static int finish_workspace(const acs_run_request *req, acs_sandbox *sb, const struct timespec *start,
                            int patch_fd, acs_report *rep, acs_error *err)
{
        const acs_profile *prof = req->profile;
        const acs_options *o = req->opts;
        int r;

        if (sb->upper_fd < 0)
                return 0;
        double t = acs_now_ms();
        /* acs-launch's own configuration is never written back (apply-host.c) */
        _cleanup_(acs_guards_done) acs_guards guards = { 0 };
        if (o && o->apply && o->workspace && (r = acs_guards_for_profile(prof->path, &guards, err)) < 0)
                return r;
        acs_diff_opts dopts = {
                .protect = prof->protect,
                .guards = &guards,
                /* reports carry the patch; a terminal user asks for it */
                .want_patch = !req->stream || (o && (o->patch || o->report || o->keep)),
                .max_entries = ACS_DIFF_MAX_ENTRIES,
                .max_list_bytes = ACS_DIFF_MAX_LIST_BYTES,
                .max_patch_bytes = ACS_DIFF_MAX_PATCH_BYTES,
        };
        if ((r = acs_diff_collect(sb->upper_fd, sb->lower_fd, &dopts, &rep->files, err)) < 0)
                return r;
        rep->have_files = true;
        rep->files.run_start = *start;
        /* before anything is written back: the host directories' ctimes now */
        acs_changes_mark_run_conflicts(&rep->files, sb->lower_fd);

        if (o && o->patch) {
                int fd = patch_fd >= 0 ? patch_fd : STDOUT_FILENO;
                if (fd == STDOUT_FILENO && fflush(stdout) != 0)
                        return acs_error_errno(err, -errno, "patch", "writing '%s'", o->patch);
                if (rep->files.patch && fd == STDOUT_FILENO && isatty(fd)) {
                        /* the program's bytes: never raw to a terminal under ansi = strip */
                        acs_term_fwrite(rep->files.patch, rep->files.patch_len, stdout, prof->ansi == ACS_ANSI_STRIP);
                        if (fflush(stdout) != 0)
                                return acs_error_errno(err, -errno, "patch", "writing '%s'", o->patch);
                } else if (rep->files.patch && (r = acs_write_all(fd, rep->files.patch, rep->files.patch_len)) < 0)
                        return acs_error_errno(err, r, "patch", "writing '%s'", o->patch);
        }
        if (o && o->keep && (r = acs_keep_layer(sb->upper_fd, &rep->files, o->keep, err)) < 0)
                return r;
        if (o && o->apply && o->workspace) {
                bool ok = rep->status == ACS_STATUS_EXITED && rep->exit_code == 0;
                bool go = prof->apply == ACS_APPLY_ALWAYS || (prof->apply == ACS_APPLY_SUCCESS && ok);
                /* a truncated list is part of the changes: never apply part */
                go = go && !rep->files.truncated;
                rep->apply_skipped = !go;
                if (go) {
                        /* the host directory itself: the sandbox's lower is a read-only bind */
                        _cleanup_close_ int ws = open(o->workspace, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
                        if (ws < 0)
                                return acs_error_errno(err, -errno, "apply", "cannot open '%s'", o->workspace);
                        acs_apply_opts ao = { .protect = prof->protect, .guards = &guards, .umask = o->umask };
                        if ((r = acs_apply_changes(sb->upper_fd, ws, &rep->files, &ao, &rep->apply, err)) < 0)
                                return r;
                        rep->have_apply = true;
                        apply_outcome(rep);
                }
        }
        rep->diff_ms = acs_now_ms() - t;
        return 0;
}

int acs_run(const acs_run_request *req, acs_report *rep, acs_error *err)
{
        const acs_profile *prof = req->profile;
        plan p = { 0 };
        acs_sandbox sb = { .pid = -1, .pidfd = -1, .sync_fd = -1, .upper_fd = -1, .lower_fd = -1 };
        acs_supervise_out so = { 0 };
        acs_cgroup cg = ACS_CGROUP_NULL;
        int outp[2] = { -1, -1 }, errp[2] = { -1, -1 }, scanp[2] = { -1, -1 };
        int sigfd = -1, modfd = -1, trace_fd = -1, patch_fd = -1, r;
        acs_shield *shield = NULL;
        acs_input in = ACS_INPUT_NULL;
        sigset_t mask, old;
        struct timespec run_start = { 0 };
        double t0 = acs_now_ms();

        *rep = (acs_report){ .status = ACS_STATUS_ERROR, .exit_code = 125 };
        rep->profile = strdup(prof->name ? prof->name : "");
        bool scan = req->kind != ACS_RUN_EXEC && prof->scan_mode != ACS_SCAN_OFF;
        rep->scan.verdict = ACS_VERDICT_SKIPPED;

        if (scan) {
                if ((r = acs_scan_ext_open(err)) < 0)
                        goto out;
                modfd = r;
                if ((r = open_scan_channel(scanp, err)) < 0)
                        goto out;
        }
        if ((r = build_plan(req, scan ? (int[]){ scanp[1], modfd } : (int[]){ -1, -1 }, &p, err)) < 0) {
                if (r == -EFBIG && prof->scan_mode == ACS_SCAN_ENFORCE && req->kind == ACS_RUN_FILE &&
                    refuse_too_large(rep, prof, p.file_size) == 0)
                        r = 0; /* refused like any other finding, before a sandbox exists */
                goto out;
        }
        rep->scan_bypass = TAKE_PTR(p.bypass);
        /* opened before the run: a refused target costs no run */
        if (req->opts && req->opts->patch && strcmp(req->opts->patch, "-") != 0 &&
            (r = patch_fd = acs_open_output(req->opts->patch, err)) < 0)
                goto out;
        if (scan && (r = send_scan_policy(scanp[0], prof, &p, err)) < 0)
                goto out;
        fill_limits(rep, &p);
        shield = acs_shield_new(p.max_tokens, prof->ansi == ACS_ANSI_STRIP);
        if (!shield) {
                r = acs_error_set(err, -ENOMEM, "io", "out of memory");
                goto out;
        }
        /* -v: the sandbox's setup traces go to our own stderr, never to the
         * program's stderr pipe that its stdio becomes (and the report holds) */
        if (p.cfg.verbose)
                p.cfg.trace_fd = trace_fd = fcntl(STDERR_FILENO, F_DUPFD_CLOEXEC, 3);
        if ((r = open_pipe(outp, err)) < 0 || (r = open_pipe(errp, err)) < 0)
                goto out;
        if ((r = acs_input_open(req->stdin_fd, req->stdin_mode, &in, err)) < 0)
                goto out;
        p.cfg.stdin_fd = in.prog_fd;
        p.cfg.stdout_fd = outp[1];
        p.cfg.stderr_fd = errp[1];

        /* Signals that end the run arrive on a signalfd; the sandbox gets
         * the original mask back before exec. */
        sigemptyset(&mask);
        sigaddset(&mask, SIGTERM);
        sigaddset(&mask, SIGINT);
        sigaddset(&mask, SIGHUP);
        sigprocmask(SIG_BLOCK, &mask, &old);
        sigfd = signalfd(-1, &mask, SFD_CLOEXEC | SFD_NONBLOCK);

        clock_gettime(CLOCK_REALTIME, &run_start);
        /* -v: every step's time counts from the start of the run */
        p.cfg.t0_ms = t0;
        double t_spawn = acs_now_ms();
        if (p.cfg.verbose)
                fprintf(stderr, "acs-launch: %8.3f ms  plan ready (profile %s)\n", t_spawn - t0, prof->name);
        if (p.cfg.rl_as || p.cfg.rl_nproc || p.cfg.rl_cpu) {
                const char *why = NULL;
                if (acs_cgroup_create(p.cfg.rl_as, p.cfg.rl_nproc, &cg, &why) > 0) {
                        p.cfg.cgroup_fd = cg.dir_fd;
                        p.cfg.mem_cgroup = cg.memory;
                }
                if (p.cfg.verbose)
                        fprintf(stderr, "acs-launch: %8.3f ms  cgroup: %s%s%s%s\n", acs_now_ms() - t0,
                                cg.dir_fd >= 0 ? cg.path : "none, rlimits only: ", cg.dir_fd >= 0 ? "" : why,
                                cg.memory ? " (memory.max)" : "", cg.pids ? " (pids.max)" : "");
        }
        r = acs_sandbox_spawn(&p.cfg, &sb, err);
        if (r >= 0)
                fill_confinement(rep, &sb, &cg);
        if (r < 0 || !sb.in_cgroup)
                acs_cgroup_destroy(&cg);
        closep(&outp[1]);
        closep(&errp[1]);
        closep(&scanp[1]);
        closep(&modfd);
        outp[1] = errp[1] = scanp[1] = modfd = -1;
        acs_input_spawned(&in);
        if (r < 0)
                goto restore;

        acs_supervise_in si = { .sb = &sb, .out_fd = outp[0], .err_fd = errp[0], .scan_fd = scanp[0],
                                .signal_fd = sigfd, .cancel_fd = req->cancel_fd, .timeout_s = p.timeout,
                                .cpu_limit_us = (int64_t)p.cfg.rl_cpu * 1000000,
                                .cgroup_fd = sb.in_cgroup ? cg.dir_fd : -1,
                                .stream = req->stream, .shield = shield, .t_spawn = t_spawn,
                                .trace_t0 = p.cfg.verbose ? t0 : 0, .input = &in,
                                .strip_ansi = prof->ansi == ACS_ANSI_STRIP,
                                .mark = { same_file(STDOUT_FILENO, STDERR_FILENO) ? req->mark : NULL, req->mark } };
        r = acs_supervise(&si, &so, err);
        if (r < 0) {
                acs_sandbox_kill(&sb);
                goto restore;
        }
        /* nothing of the sandbox is left: give the caller's terminal back
         * before anything more is printed on it */
        acs_input_close(&in);
        classify(rep, &so);
        /* the kernel's OOM killer in the run's cgroup: a memory-limit kill */
        if (rep->status == ACS_STATUS_SIGNALED && rep->signal == SIGKILL && acs_cgroup_oom_kills(&cg) > 0)
                rep->status = ACS_STATUS_MEMORY;
        else if (rep->status != ACS_STATUS_TIMEOUT && cpu_limit_kill(rep, &so)) {
                rep->status = ACS_STATUS_CPU;
                if (!rep->signal) {
                        rep->signal = SIGKILL;
                        rep->exit_code = 128 + SIGKILL;
                }
        }
        bool verdict = false;
        if (so.scan_line) {
                acs_scan_result sr = { 0 };
                if (acs_scan_result_from_json(so.scan_line, &sr) >= 0) {
                        verdict = true;
                        acs_scan_result_done(&rep->scan);
                        rep->scan = sr;
                        rep->scan_ms = sr.ms;
                        if (sr.verdict == ACS_VERDICT_REJECT && rep->status == ACS_STATUS_EXITED &&
                            rep->exit_code == 126) {
                                rep->status = ACS_STATUS_REJECTED;
                        }
                }
        }
        /* The scanner reports before any of the program runs: an ordinary
         * exit without a verdict is the interpreter failing before or in the
         * scan (bad flags, another Python, a broken module), never the
         * program's status. A timeout or a signal keeps its own status. */
        if (scan && !verdict && rep->status == ACS_STATUS_EXITED) {
                rep->status = ACS_STATUS_ERROR;
                free(rep->error);
                rep->error = NULL;
                if (asprintf(&rep->error, "the scan in the sandbox gave no verdict: %s exited with status %d before "
                             "scanning (its stderr says why)", p.argv[0], rep->exit_code) < 0)
                        rep->error = NULL;
                rep->exit_code = 125;
        }
        acs_shield_finish(shield, &rep->out, &rep->err);
        if ((r = finish_workspace(req, &sb, &run_start, patch_fd, rep, err)) < 0)
                goto restore;
        if (p.cfg.verbose)
                fprintf(stderr, "acs-launch: %8.3f ms  output clipped, workspace diffed (%.3f ms)\n",
                        acs_now_ms() - t0, rep->diff_ms);
        rep->setup_ms = so.setup_ms;
        rep->run_ms = so.run_ms;
        rep->user_ms = (double)so.ru.ru_utime.tv_sec * 1e3 + (double)so.ru.ru_utime.tv_usec / 1e3;
        rep->sys_ms = (double)so.ru.ru_stime.tv_sec * 1e3 + (double)so.ru.ru_stime.tv_usec / 1e3;
        rep->max_rss_kb = so.ru.ru_maxrss;
        if (req->stream)
                for (int s = ACS_STDOUT; s <= ACS_STDERR; s++) {
                        size_t len = 0;
                        _cleanup_free_ char *ep = acs_shield_epilogue(shield, s, &len);
                        if (ep && len)
                                acs_pass_through(si.mark[s], s == ACS_STDOUT ? 1 : 2, ep, len);
                }
        if (so.launcher_signal)
                rep->signal = so.launcher_signal;
        r = 0;
restore:
        sigprocmask(SIG_SETMASK, &old, NULL);
        /* a terminating signal that arrived now still counts (the caller re-raises it) */
out:
        acs_pass_flush(req->mark, STDERR_FILENO); /* a partial line the mark still held */
        rep->wall_ms = acs_now_ms() - t0;
        if (r < 0) {
                rep->status = ACS_STATUS_ERROR;
                rep->exit_code = err && err->exit_status ? err->exit_status : 125;
                free(rep->error);
                rep->error = strdup(err && err->msg[0] ? err->msg : strerror(-r));
        }
        acs_sandbox_kill(&sb);
        acs_sandbox_close(&sb);
        acs_input_close(&in); /* after init is reaped: the program cannot change it any more */
        acs_cgroup_destroy(&cg); /* after init is reaped: nothing is left in it */
        acs_shield_free(shield);
        free(so.scan_line);
        close_pair(outp);
        close_pair(errp);
        close_pair(scanp);
        closep(&modfd);
        closep(&sigfd);
        closep(&trace_fd);
        closep(&patch_fd);
        plan_done(&p);
        return r;
}

int acs_report_exit_status(const acs_report *r)
{
        switch (r->status) {
        case ACS_STATUS_TIMEOUT: return 124;
        case ACS_STATUS_REJECTED: return 126;
        default: return r->exit_code;
        }
}
