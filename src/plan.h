/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The plan: what a run will do, computed from the profile, the command
 * line and facts about the host gathered beforehand. Pure: planning makes
 * no system call, so the same inputs always give the same plan, which is
 * what `--dry-run` prints and what the sandbox applies (doc/design.md).
 */
#pragma once

#include <stdio.h>
#include <sys/types.h>

#include "run.h"
#include "sandbox.h"

/* What stat(2) (and, for the workspace, an access check) said about a host path. */
typedef struct acs_path_fact {
        char *path;
        int err;        /* 0, or the errno of stat */
        mode_t mode;
        uid_t uid;
        gid_t gid;
        bool access_ok; /* the workspace: readable and searchable as the sandbox will read it */
} acs_path_fact;

/* Everything about the host the plan depends on, gathered before planning. */
typedef struct acs_host_facts {
        char *const *environ;  /* the launcher's environment ([env] keep) */
        bool euid_root;
        acs_path_fact *paths;  /* every host path the profile and the options name */
        size_t n_paths;
        /* ACS_RUN_FILE: the script, or the error reading it gave (reported where the plan needs it) */
        int file_r;
        acs_error file_err;
        char *file_data;
        size_t file_len;
        uint64_t file_size;
        char *file_name;
        /* how the sandbox will be cloned, and the kernel's layers */
        acs_clone_kind clone;  /* fork-, vfork- or shared-memory clone (sandbox.h) */
        bool init_image;       /* pid 1 execs the embedded acs-init */
        int landlock_abi;      /* 0: none */
} acs_host_facts;

void acs_host_facts_done(acs_host_facts *f);
/* plan-facts.c: the only part of planning that looks at the host. */
int acs_host_facts_gather(const acs_run_request *req, acs_host_facts *ret, acs_error *err);

typedef struct acs_plan {
        acs_sandbox_cfg cfg;
        char **argv;
        char **envp;
        char **tmpfs;
        acs_bind *binds;
        size_t n_binds;
        char **ro_layers;     /* see acs_plan_ro_layers */
        char *file_data;
        size_t file_len;
        char *file_name;
        uint64_t file_size;   /* as fstat saw it, also when over max_source */
        const char *script;   /* /run/acs/NAME in argv (borrowed), or NULL */
        char *venv_python;    /* [python] venv: VENV/bin/python3 */
        double timeout;
        uint64_t max_tokens;
        char **bypass;        /* [env] allow_loader variables in envp of a scanned run */
        bool scan;            /* the program is scanned in the sandbox before it runs */
        int boot_arg;         /* argv index of the scan bootstrap, or -1 */
} acs_plan;

void acs_plan_done(acs_plan *p);

/*
 * Profile + request + host facts -> plan. scan_fds: -1 for no scan, else
 * the sandbox's scan socket end and module fd (-2, -2: a scanned run that
 * is only printed). Errors name the setting or path, as a run reports them.
 */
int acs_plan_build(const acs_run_request *req, const acs_host_facts *facts, const int scan_fds[2],
                   acs_plan *p, acs_error *err);

/* ---- the mount table ---------------------------------------------------- */

typedef enum {
        ACS_MOP_PRIVATE,      /* / recursively a slave: nothing propagates back */
        ACS_MOP_SCRATCH,      /* the bounded scratch tmpfs W (upper, /tmp, /dev/shm) */
        ACS_MOP_ROOT,         /* the new root: a small tmpfs */
        ACS_MOP_EMPTY,        /* W/empty, the second lower layer of read-only overlays */
        ACS_MOP_ETC,          /* /etc/passwd, group, hosts of our own */
        ACS_MOP_DEV,          /* /dev: null zero full random urandom + links */
        ACS_MOP_TMPFS,        /* arg: a dir of W bound at dest */
        ACS_MOP_WORKSPACE,    /* the workspace: lower bind + overlay (or read-only overlay; bare: the upper bound) */
        ACS_MOP_BIND,         /* bind index: file bind, rw dir bind (+ socket covering) or ro overlay */
        ACS_MOP_USR_LINKS,    /* /bin -> usr/bin ... as on the host */
        ACS_MOP_SCRIPT,       /* /run/acs/NAME, read-only */
        ACS_MOP_PROC,         /* a fresh procfs (hidepid=ptraceable) */
        ACS_MOP_MASK_PROC,    /* /proc masks and a fresh boot id */
        ACS_MOP_INIT_BLOB,    /* fast path: pid 1's image, out of the sandbox's view */
        ACS_MOP_PIVOT,        /* pivot_root, old root (with W) detached */
        ACS_MOP_RO_ROOT,      /* / read-only */
} acs_mount_op_kind;

typedef struct acs_mount_op {
        acs_mount_op_kind kind;
        size_t index;         /* ACS_MOP_BIND: cfg->binds[index]; ACS_MOP_TMPFS: backing W/t<index> */
        const char *dest;     /* inside the sandbox (borrowed from the cfg), or NULL */
} acs_mount_op;

/*
 * The profile's read-only directory binds that are siblings on the host
 * (/etc/ssl and /etc/alternatives) share one overlay of their parent: each overlay
 * superblock costs a synchronous RCU grace period when the sandbox ends
 * (about 0.5 ms here), and the binds of its subdirectories cost none.
 * Sets binds[i].layer and returns the parents in *ret (a NULL-terminated
 * list, NULL when no two binds share one), or -ENOMEM. Pure: whether a
 * layer is usable on this host (the same mount, no mounts below it) is
 * checked when it is mounted, and a bind falls back to its own overlay.
 */
#define ACS_MAX_RO_LAYERS 8
int acs_plan_ro_layers(acs_bind *binds, size_t n, char ***ret);

/* The most operations a cfg can need (the size of the table to pass). */
size_t acs_mount_ops_max(const acs_sandbox_cfg *cfg);
/* The ordered mount table for cfg; init_image: pid 1 execs the embedded acs-init.
 * Fills ops (acs_mount_ops_max entries) and returns how many. */
size_t acs_mount_ops(const acs_sandbox_cfg *cfg, bool init_image, acs_mount_op *ops);

/* ---- what the sandbox gets besides mounts -------------------------------- */

/* How memory pinned outside an address space is bounded (security-model.md). */
acs_shm_bound acs_plan_memfd(const acs_sandbox_cfg *cfg, bool mem_cgroup);
acs_shm_bound acs_plan_sysv(const acs_sandbox_cfg *cfg, bool mem_cgroup, bool root);
const char *acs_shm_bound_to_string(acs_shm_bound b);

/* plan-print.c: the plan as stable text (--dry-run) or JSON (--dry-run --json). */
int acs_plan_print(FILE *out, const acs_run_request *req, const acs_plan *p, const acs_host_facts *facts);
char *acs_plan_to_json(const acs_run_request *req, const acs_plan *p, const acs_host_facts *facts);
