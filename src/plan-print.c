/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * `--dry-run`: the plan as stable text, or as one JSON object with
 * `--json`. Both walk the same plan the run applies (plan.h), and the mount
 * table comes from the same function the sandbox calls (acs_mount_ops), so
 * the printed order is the applied order. Pure: writes only to out.
 */
#include <json-c/json.h>
#include <string.h>

#include "plan.h"

#define SCAN_BOOT "<scan bootstrap>"

/* One mount step: its name and what it does, in words (stable: golden files). */
static void describe_op(const acs_sandbox_cfg *cfg, const acs_mount_op *op, const char **ret_name, char *buf,
                        size_t len)
{
        static const char *const names[] = {
                [ACS_MOP_PRIVATE] = "private",     [ACS_MOP_SCRATCH] = "scratch",   [ACS_MOP_ROOT] = "root",
                [ACS_MOP_EMPTY] = "empty",         [ACS_MOP_ETC] = "etc",           [ACS_MOP_DEV] = "dev",
                [ACS_MOP_TMPFS] = "tmpfs",         [ACS_MOP_WORKSPACE] = "workspace", [ACS_MOP_BIND] = "bind",
                [ACS_MOP_USR_LINKS] = "usr-links", [ACS_MOP_SCRIPT] = "script",    [ACS_MOP_PROC] = "proc",
                [ACS_MOP_MASK_PROC] = "mask-proc", [ACS_MOP_INIT_BLOB] = "init",    [ACS_MOP_PIVOT] = "pivot",
                [ACS_MOP_RO_ROOT] = "ro-root",
        };
        *ret_name = names[op->kind];
        unsigned long long ws = cfg->ws_size ?: 128ULL << 20;
        switch (op->kind) {
        case ACS_MOP_PRIVATE: snprintf(buf, len, "/ recursively a slave: nothing propagates back"); break;
        case ACS_MOP_SCRATCH:
                snprintf(buf, len, "tmpfs size=%llu: overlay upper, /tmp and /dev/shm share this bound", ws);
                break;
        case ACS_MOP_ROOT:
                snprintf(buf, len, "tmpfs size=%llu as the new /", (unsigned long long)(cfg->file_len + (1 << 20)));
                break;
        case ACS_MOP_EMPTY: snprintf(buf, len, "empty second lower layer of read-only overlays"); break;
        case ACS_MOP_ETC: snprintf(buf, len, "/etc/passwd, /etc/group, /etc/hosts (hostname %s)", cfg->hostname); break;
        case ACS_MOP_DEV: snprintf(buf, len, "/dev: null zero full random urandom, fd links"); break;
        case ACS_MOP_TMPFS: snprintf(buf, len, "%s: scratch dir t%zu, mode 1777", op->dest, op->index); break;
        case ACS_MOP_WORKSPACE:
                if (cfg->ws_mode == ACS_WS_NONE)
                        snprintf(buf, len, "none");
                else if (acs_workspace_bare(cfg))
                        snprintf(buf, len, "/workspace: %s", cfg->ws_mode == ACS_WS_READONLY
                                 ? "an empty directory, read-only"
                                 : "bind of the overlay's upper layer (diffed after the run; no host workspace, "
                                   "so nothing to overlay)");
                else
                        snprintf(buf, len, "/workspace: %s of %s", cfg->ws_mode == ACS_WS_READONLY
                                 ? "read-only overlay" : "overlay (upper diffed after the run)",
                                 cfg->workspace ? cfg->workspace : "an empty directory");
                break;
        case ACS_MOP_BIND: {
                const acs_bind *b = &cfg->binds[op->index];
                const char *how = b->socket ? "socket bind (rw)"
                                : b->is_dir && b->readonly && b->layer >= 0 ? "from the shared read-only overlay of "
                                : b->is_dir && b->readonly ? "read-only overlay (host sockets unreachable)"
                                : b->is_dir ? "rw bind, host sockets covered"
                                : b->readonly ? "ro bind" : "rw bind";
                const char *layer = b->layer >= 0 && (size_t)b->layer < cfg->n_ro_layers ? cfg->ro_layers[b->layer] : "";
                snprintf(buf, len, "%s <- %s: %s%s%s%s", b->dest, b->src, how, layer,
                         *layer ? " (host sockets unreachable)" : "", b->optional ? " (optional)" : "");
                break;
        }
        case ACS_MOP_USR_LINKS: snprintf(buf, len, "/bin /sbin /lib* links as on the host"); break;
        case ACS_MOP_SCRIPT:
                snprintf(buf, len, "/run/acs/%s, %zu bytes, mode 0444", cfg->file_name, cfg->file_len);
                break;
        case ACS_MOP_PROC: snprintf(buf, len, "fresh procfs, hidepid=ptraceable, nosuid nodev noexec"); break;
        case ACS_MOP_MASK_PROC:
                snprintf(buf, len, "/dev/null over keys key-users cmdline timer_list timer_stats sched_debug "
                         "latency_stats kcore; empty over acpi asound scsi; fresh boot_id");
                break;
        case ACS_MOP_INIT_BLOB: snprintf(buf, len, "pid 1's image in scratch, exec-only, detached with it"); break;
        case ACS_MOP_PIVOT: snprintf(buf, len, "pivot_root, old root and scratch detached"); break;
        case ACS_MOP_RO_ROOT: snprintf(buf, len, "/ read-only, nosuid, nodev"); break;
        default: snprintf(buf, len, "?");
        }
}

static const char *arg_text(const acs_plan *p, size_t i)
{
        return p->boot_arg == (int)i ? SCAN_BOOT : p->argv[i];
}

static void print_limit(FILE *out, const char *name, uint64_t v, const char *unit)
{
        if (v)
                fprintf(out, "  %-12s %llu%s\n", name, (unsigned long long)v, unit);
        else
                fprintf(out, "  %-12s unlimited\n", name);
}

/* The mount table, numbered; allocated here (never in a sandbox child). */
static int print_mounts(FILE *out, const acs_plan *p, bool init_image)
{
        _cleanup_free_ acs_mount_op *ops = calloc(acs_mount_ops_max(&p->cfg), sizeof *ops);
        if (!ops)
                return -ENOMEM;
        size_t n = acs_mount_ops(&p->cfg, init_image, ops);
        fprintf(out, "mounts (in order):\n");
        for (size_t i = 0; i < n; i++) {
                char what[4096];
                const char *name;
                describe_op(&p->cfg, &ops[i], &name, what, sizeof what);
                fprintf(out, "  %2zu %-10s %s\n", i + 1, name, what);
        }
        return 0;
}

static const char *const clone_text[] = {
        [ACS_CLONE_FORK] = "fork-style, the launcher writes the id maps",
        [ACS_CLONE_VFORK] = "vfork-style, own id maps",
        [ACS_CLONE_SHARED] = "in the launcher's memory, the launcher writes the id maps",
};
static const char *const clone_name[] = {
        [ACS_CLONE_FORK] = "fork",
        [ACS_CLONE_VFORK] = "vfork",
        [ACS_CLONE_SHARED] = "shared",
};

static void print_confinement(FILE *out, const acs_run_request *req, const acs_plan *p, const acs_host_facts *f)
{
        const acs_sandbox_cfg *c = &p->cfg;
        fprintf(out, "confinement (in order):\n");
        fprintf(out, "  clone      %s\n", clone_text[f->clone]);
        fprintf(out, "  pid 1      %s\n", f->init_image ? "the embedded acs-init (exec-only image, non-dumpable)"
                                                        : "the clone itself, reaping");
        fprintf(out, "  namespaces user mount pid ipc uts cgroup net\n");
        fprintf(out, "  identity   %s\n", f->euid_root ? "an ordinary host uid: the workspace's owner, else nobody"
                                                       : "the launcher's uid, mapped to itself");
        fprintf(out, "  hostname   %s\n", c->hostname);
        fprintf(out, "  network    %s\n", c->net == ACS_NET_LOOPBACK ? "loopback up" : "none");
        fprintf(out, "  mounts     the table above\n");
        if (f->landlock_abi > 0)
                fprintf(out, "  landlock   ABI %d: read anywhere in the root, write in the writable mounts\n",
                        f->landlock_abi);
        else
                fprintf(out, "  landlock   none (not in this kernel)\n");
        fprintf(out, "  pid 1      own keyring, capabilities dropped, no_new_privs, the program's seccomp filter\n");
        fprintf(out, "  seccomp    baseline; sockets %s", c->net == ACS_NET_NONE ? "AF_UNIX only" : "AF_UNIX AF_INET "
                                                                                       "AF_INET6 NETLINK_ROUTE");
        for (char **d = c->seccomp_deny; d && *d; d++)
                fprintf(out, "%s%s", d == c->seccomp_deny ? "; deny " : " ", *d);
        fprintf(out, "\n");
        fprintf(out, "  memfd      %s with the run's memory cgroup, else %s\n",
                acs_shm_bound_to_string(acs_plan_memfd(c, true)), acs_shm_bound_to_string(acs_plan_memfd(c, false)));
        fprintf(out, "  sysv       %s with the run's memory cgroup, else %s\n",
                acs_shm_bound_to_string(acs_plan_sysv(c, true, f->euid_root)),
                acs_shm_bound_to_string(acs_plan_sysv(c, false, f->euid_root)));
        fprintf(out, "  program    stdio, landlock restrict, setsid, chdir %s, rlimits, exec\n", c->chdir);
        const char *scan = req->kind == ACS_RUN_EXEC ? "none (exec)"
                         : p->scan ? acs_scan_mode_to_string(req->profile->scan_mode) : "off";
        fprintf(out, "  scan       %s%s\n", scan, p->scan ? ", in the sandbox before any of the program runs" : "");
}

int acs_plan_print(FILE *out, const acs_run_request *req, const acs_plan *p, const acs_host_facts *f)
{
        const acs_sandbox_cfg *c = &p->cfg;
        fprintf(out, "plan: %s, profile %s\n", req->kind == ACS_RUN_EXEC ? "exec" : "run",
                req->profile->name ? req->profile->name : "?");
        fprintf(out, "argv:\n");
        for (size_t i = 0; p->argv[i]; i++)
                fprintf(out, "  [%zu] %s\n", i, arg_text(p, i));
        fprintf(out, "env:\n");
        for (char **e = p->envp; e && *e; e++)
                fprintf(out, "  %s\n", *e);
        for (char **b = p->bypass; b && *b; b++)
                fprintf(out, "  (scan bypass: %s, [env] allow_loader)\n", *b);
        fprintf(out, "limits:\n");
        fprintf(out, "  %-12s %g s%s\n", "timeout", p->timeout, p->timeout ? "" : " (none)");
        print_limit(out, "memory", c->rl_as, " bytes");
        print_limit(out, "cpu", c->rl_cpu, " s");
        print_limit(out, "processes", c->rl_nproc, "");
        print_limit(out, "file_size", c->rl_fsize, " bytes");
        print_limit(out, "open_files", c->rl_nofile, "");
        print_limit(out, "max_tokens", p->max_tokens, "");
        fprintf(out, "  %-12s %s\n", "enforced", c->rl_as || c->rl_nproc || c->rl_cpu
                ? "rlimits, and the run's cgroup where it can be created" : "rlimits");
        int r = print_mounts(out, p, f->init_image);
        if (r < 0)
                return r;
        print_confinement(out, req, p, f);
        return ferror(out) ? -EIO : 0;
}

static json_object *strv_json(char *const *v, const acs_plan *p)
{
        json_object *a = json_object_new_array();
        for (size_t i = 0; v && v[i]; i++)
                json_object_array_add(a, json_object_new_string(p && v == p->argv ? arg_text(p, i) : v[i]));
        return a;
}

char *acs_plan_to_json(const acs_run_request *req, const acs_plan *p, const acs_host_facts *f)
{
        const acs_sandbox_cfg *c = &p->cfg;
        _cleanup_free_ acs_mount_op *ops = calloc(acs_mount_ops_max(c), sizeof *ops);
        if (!ops)
                return NULL;
        json_object *o = json_object_new_object(), *lim = json_object_new_object(), *m = json_object_new_array();
        json_object_object_add(o, "dry_run", json_object_new_boolean(1));
        json_object_object_add(o, "profile", json_object_new_string(req->profile->name ? req->profile->name : ""));
        json_object_object_add(o, "argv", strv_json(p->argv, p));
        json_object_object_add(o, "env", strv_json(p->envp, NULL));
        json_object_object_add(lim, "timeout_s", json_object_new_double(p->timeout));
        json_object_object_add(lim, "memory", json_object_new_int64((int64_t)c->rl_as));
        json_object_object_add(lim, "cpu_s", json_object_new_int64((int64_t)c->rl_cpu));
        json_object_object_add(lim, "processes", json_object_new_int64((int64_t)c->rl_nproc));
        json_object_object_add(lim, "file_size", json_object_new_int64((int64_t)c->rl_fsize));
        json_object_object_add(lim, "open_files", json_object_new_int64((int64_t)c->rl_nofile));
        json_object_object_add(lim, "max_tokens", json_object_new_int64((int64_t)p->max_tokens));
        json_object_object_add(o, "limits", lim);
        size_t n = acs_mount_ops(c, f->init_image, ops);
        for (size_t i = 0; i < n; i++) {
                char what[4096];
                const char *name;
                describe_op(c, &ops[i], &name, what, sizeof what);
                json_object *e = json_object_new_object();
                json_object_object_add(e, "op", json_object_new_string(name));
                json_object_object_add(e, "what", json_object_new_string(what));
                json_object_array_add(m, e);
        }
        json_object_object_add(o, "mounts", m);
        json_object_object_add(o, "net", json_object_new_string(acs_net_mode_to_string(c->net)));
        json_object_object_add(o, "landlock_abi", json_object_new_int(f->landlock_abi));
        json_object_object_add(o, "clone", json_object_new_string(clone_name[f->clone]));
        json_object_object_add(o, "init_image", json_object_new_boolean(f->init_image));
        json_object_object_add(o, "seccomp_deny", strv_json(c->seccomp_deny, NULL));
        json_object_object_add(o, "memfd", json_object_new_string(acs_shm_bound_to_string(acs_plan_memfd(c, false))));
        json_object_object_add(o, "sysv",
                               json_object_new_string(acs_shm_bound_to_string(acs_plan_sysv(c, false, f->euid_root))));
        json_object_object_add(o, "scan", json_object_new_boolean(p->scan));
        char *s = strdup(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE));
        json_object_put(o);
        return s;
}
