/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The kernel layer: one clone into fresh namespaces, then a flat, ordered
 * list of setup steps in the child, then exec. See security-model.md.
 */
#pragma once

#include <sys/types.h>

#include "cli.h"
#include "profile.h"
#include "sync-proto.h"

/* Run by root, host ids 1..ACS_ROOT_MAP_LAST are mapped into the sandbox. */
#define ACS_ROOT_MAP_LAST 65534

typedef struct acs_bind {
        char *src;        /* host path, opened inside the new mount namespace */
        char *dest;       /* absolute path inside the sandbox */
        bool readonly;
        bool is_dir;
        bool optional;    /* a profile path this host may lack */
        bool socket;      /* a host unix socket the profile allows ([filesystem] sockets) */
        int layer;        /* read-only dir shown from the shared overlay cfg->ro_layers[layer], or -1 */
} acs_bind;

/* Everything the child needs, computed before clone (the plan). */
typedef struct acs_sandbox_cfg {
        char **argv;            /* program argv; argv[0] absolute or searched in PATH */
        char **envp;
        const char *chdir;      /* inside; default /workspace or / */
        const char *hostname;
        acs_net_mode net;
        acs_bind *binds;
        size_t n_binds;
        char **ro_layers;       /* host dirs holding several read-only binds: one overlay each */
        size_t n_ro_layers;
        char **tmpfs;           /* inside paths backed by the bounded scratch tmpfs */
        acs_ws_mode ws_mode;
        const char *workspace;  /* host workspace dir, or NULL for an empty one */
        int ws_tree_fd;         /* root launcher: detached idmapped clone of it, or -1 */
        uint64_t ws_size;
        const char *file_name;  /* script placed read-only at /run/acs/<name>, or NULL */
        const char *file_data;
        size_t file_len;
        /* limits (0 = unlimited) */
        uint64_t rl_cpu, rl_as, rl_nproc, rl_fsize, rl_nofile;
        bool rl_as_fallback;    /* [limits] memory_rlimit = fallback: no RLIMIT_AS in a memory cgroup */
        uint64_t rl_cpu_total;  /* sessions: each process's RLIMIT_CPU, the session's bound (0: rl_cpu + 1) */
        char **seccomp_deny;
        /* I/O: fds the program gets as 0, 1, 2 (-1 for stdin = /dev/null) */
        int stdin_fd, stdout_fd, stderr_fd;
        /* in-sandbox scan (issue 3): argv is python3's scanning bootstrap
         * (acs_scan_boot), which needs these two fds, > 2, inherited across
         * the exec (the program process clears their O_CLOEXEC) */
        int scan_fd;            /* our end of the scan socket: policy in, verdict out */
        int scan_module_fd;     /* acs-scan-ext.so */
        int cgroup_fd;          /* the run's cgroup v2 directory to clone into, or -1 */
        bool mem_cgroup;        /* that cgroup's memory.max bounds the run (shm, memfd included) */
        bool verbose;
        double t0_ms;           /* CLOCK_MONOTONIC ms when the run started (-v) */
        int trace_fd;           /* -v: a CLOEXEC dup (> 2) of the launcher's stderr, or -1 */
} acs_sandbox_cfg;

/*
 * No host workspace: /workspace is the overlay's upper directory itself,
 * bound (read-only: the empty lower), not an overlay of an empty directory
 * (mounts.c: bare_workspace). Pure: plan-print.c says so too.
 */
static inline bool acs_workspace_bare(const acs_sandbox_cfg *cfg)
{
        return cfg->workspace == NULL;
}

/*
 * How memory the program can pin outside its address space is bounded
 * (security-model.md): memfd_create and the SysV IPC objects.
 */
typedef enum {
        ACS_SHM_UNLIMITED,  /* no memory limit asked for */
        ACS_SHM_CGROUP,     /* charged to the run's memory cgroup */
        ACS_SHM_IPC_LIMITS, /* SysV: the IPC namespace's sysctls, sized from the memory limit */
        ACS_SHM_DENIED,     /* nothing bounds it here: the syscalls fail with EPERM */
} acs_shm_bound;

/* The whole sandbox's usage, from init's status message (sync-proto.h). */
typedef struct acs_sandbox_usage {
        bool valid;
        int64_t user_us, sys_us, max_rss_kb;
} acs_sandbox_usage;

typedef struct acs_sandbox {
        pid_t pid;              /* the sandbox init (pid 1 inside) */
        int pidfd;
        int sync_fd;            /* messages from the sandbox; EOF when it is gone */
        int upper_fd;           /* overlay upper dir, kept for the diff (-1 if none) */
        int lower_fd;
        uid_t inner_uid;
        bool in_cgroup;         /* cloned into cfg->cgroup_fd */
        /* the layers this sandbox got (the report's confinement object) */
        int landlock_abi;       /* 0: none (the kernel has no Landlock) */
        acs_shm_bound memfd, sysv;
        /* set with the program's status: from then on nothing of the
         * sandbox runs but init, which is exiting (it is still reaped) */
        acs_sandbox_usage ended;
} acs_sandbox;


/*
 * How the sandbox's pid 1 is cloned. Where the embedded acs-init is built in
 * on x86-64 (and ACS_NO_FAST_CLONE is unset) the child works in the
 * launcher's memory until it execs acs-init: no page tables are copied.
 *   VFORK   an ordinary user: the launcher is suspended until that exec, and
 *           the child writes its own id maps (one line, its own ids)
 *   SHARED  root of the initial user namespace: its maps span host ids, which
 *           only the launcher may write, so the launcher runs on, writes
 *           them, and then waits for that exec
 *   FORK    elsewhere: a copy of the launcher, whose maps it writes
 */
typedef enum acs_clone_kind { ACS_CLONE_FORK, ACS_CLONE_VFORK, ACS_CLONE_SHARED } acs_clone_kind;
acs_clone_kind acs_sandbox_clone_kind(void);
/* Whether pid 1 execs the embedded acs-init (built in on x86-64 and
 * aarch64), in either path; elsewhere the clone's own reap loop is pid 1. */
bool acs_sandbox_init_image(void);
int acs_sandbox_spawn(const acs_sandbox_cfg *cfg, acs_sandbox *ret, acs_error *err);
/* Read one message; returns its type, 0 on EOF, -errno. Fills status (+ the
 * program's CPU µs, and sb->ended)/err/fds as applicable. */
int acs_sandbox_read_msg(acs_sandbox *sb, int *ret_status, int64_t *ret_cpu_us, acs_error *ret_err);
void acs_sandbox_kill(acs_sandbox *sb);
void acs_sandbox_close(acs_sandbox *sb);

/* privs.c / limits */
int acs_drop_privileges(acs_error *err);
int acs_caps_raise_all(acs_error *err);
/* Run by root with a root-owned workspace: a detached, idmapped clone of the
 * workspace in which host uid/gid 0 appear as the sandbox's uid, so its files
 * can be changed inside (copy-up into the upper layer) while the host tree
 * stays untouched. Returns the tree fd, or a negative errno (the caller falls
 * back to a plain read-only bind). */
int acs_idmapped_tree(const char *path, uid_t uid, gid_t gid);
/* -v: one line per setup step with the time since the launcher started the clone,
 * to cfg->trace_fd: never to fd 2, which is the program's stderr after dup2 */
void acs_trace(const acs_sandbox_cfg *cfg, const char *step);
/* mounts.c: the root from nothing; returns fds on the overlay's upper and lower dirs */
/* Sources are opened first (before any identity change or overmount): src_fds[i] for
 * binds[i] (-1: optional and missing), then src_fds[n_binds + k] for ro_layers[k]
 * (-1: not usable, its binds get an overlay each); the array is the caller's,
 * n_binds + n_ro_layers long. ws_fd for the workspace (-1: empty). */
int acs_mounts_open(const acs_sandbox_cfg *cfg, int *src_fds, int *ret_ws_fd, acs_error *err);
/* Apply the mount table (plan.h: acs_mount_ops) in its order. */
struct acs_mount_op;
int acs_mounts_build(const acs_sandbox_cfg *cfg, const struct acs_mount_op *ops, size_t n_ops,
                     const int *src_fds, int ws_fd, int *ret_upper_fd,
                     int *ret_lower_fd, const void *init_blob, size_t init_len, int *ret_init_fd,
                     acs_error *err);
/* net.c: bring up lo in the new network namespace */
int acs_net_loopback_up(acs_error *err);
/* landlock.c: the ABI (> 0), or -errno when the kernel has none; the
 * program's ruleset, built in init after pivot_root (an fd); the program
 * restricts itself with it before exec */
int acs_landlock_abi(void);
int acs_landlock_ruleset(const acs_sandbox_cfg *cfg, int abi, acs_error *err);
int acs_landlock_restrict(int ruleset, acs_error *err);
