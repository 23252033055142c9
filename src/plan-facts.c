/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The host facts a plan depends on (plan.h), gathered before planning:
 * stat(2) of every host path the profile and the options name, the
 * launcher's environment, the script's bytes, how the sandbox will be
 * cloned, the kernel's Landlock ABI. The planner itself makes no syscall.
 */
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "plan.h"

extern char **environ;

void acs_host_facts_done(acs_host_facts *f)
{
        for (size_t i = 0; i < f->n_paths; i++)
                free(f->paths[i].path);
        free(f->paths);
        free(f->file_data);
        free(f->file_name);
        *f = (acs_host_facts){ 0 };
}

static int add_path(acs_host_facts *f, const char *path, bool workspace)
{
        for (size_t i = 0; i < f->n_paths; i++)
                if (strcmp(f->paths[i].path, path) == 0) {
                        if (workspace && !f->paths[i].err)
                                f->paths[i].access_ok = faccessat(AT_FDCWD, path, R_OK | X_OK, AT_EACCESS) == 0;
                        return 0;
                }
        acs_path_fact *n = realloc(f->paths, (f->n_paths + 1) * sizeof *n);
        if (!n)
                return -ENOMEM;
        f->paths = n;
        acs_path_fact *pf = &n[f->n_paths];
        struct stat st;
        *pf = (acs_path_fact){ .path = strdup(path) };
        if (!pf->path)
                return -ENOMEM;
        f->n_paths++;
        if (stat(path, &st) < 0) {
                pf->err = errno;
                return 0;
        }
        pf->mode = st.st_mode;
        pf->uid = st.st_uid;
        pf->gid = st.st_gid;
        /* an ordinary launcher's sandbox reads the workspace as the launcher's uid */
        if (workspace)
                pf->access_ok = faccessat(AT_FDCWD, path, R_OK | X_OK, AT_EACCESS) == 0;
        return 0;
}

/* The script: read whole here, errors kept for the point of the plan that needs it. */
static int read_source(const char *path, uint64_t max, acs_host_facts *p, acs_error *err)
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
        char *buf;
        size_t len;
        int r = acs_read_all(fd, (size_t)st.st_size, &buf, &len);
        if (r == -ENOMEM)
                return r;
        if (r < 0)
                return acs_error_errno(err, r, "input", "reading '%s'", path);
        p->file_data = buf;
        p->file_len = len;
        const char *base = strrchr(path, '/');
        p->file_name = strdup(base ? base + 1 : path);
        return p->file_name ? 0 : -ENOMEM;
}

int acs_host_facts_gather(const acs_run_request *req, acs_host_facts *f, acs_error *err)
{
        const acs_profile *prof = req->profile;
        const acs_options *o = req->opts;
        int r = 0;

        *f = (acs_host_facts){ .environ = environ, .euid_root = geteuid() == 0 };
        char **const lists[] = { prof->ro_bind, prof->sockets };
        for (size_t l = 0; l < ELEMENTSOF(lists); l++)
                for (char **p = lists[l]; p && *p && r >= 0; p++)
                        r = add_path(f, *p, false);
        for (size_t i = 0; o && i < o->n_mounts && r >= 0; i++)
                if (o->mounts[i].kind != ACS_MOUNT_TMPFS)
                        r = add_path(f, o->mounts[i].src, false);
        if (r >= 0 && o && o->workspace)
                r = add_path(f, o->workspace, true);
        const char *venv = o && o->venv ? o->venv : prof->venv;
        if (r >= 0 && venv && req->kind != ACS_RUN_EXEC) {
                _cleanup_free_ char *cfg = NULL;
                r = asprintf(&cfg, "%s/pyvenv.cfg", venv) < 0 ? -ENOMEM : add_path(f, cfg, false);
                if (r >= 0)
                        r = add_path(f, venv, false);
        }
        if (r < 0)
                return acs_error_set(err, r, "plan", "out of memory");
        if (req->kind == ACS_RUN_FILE && req->argv && req->argv[0])
                f->file_r = read_source(req->argv[0], prof->max_source, f, &f->file_err);
        if (f->file_r == -ENOMEM)
                return acs_error_set(err, -ENOMEM, "input", "out of memory");
        f->clone = acs_sandbox_clone_kind();
        f->init_image = acs_sandbox_init_image();
        r = acs_landlock_abi();
        f->landlock_abi = r > 0 ? r : 0;
        return 0;
}
