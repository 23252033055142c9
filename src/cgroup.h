/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Per-run cgroup v2 limits in a delegated subtree (security-model.md,
 * "Limits"): when the launcher runs in a cgroup v2 directory that was
 * delegated to it (systemd's Delegate=yes: owned by the user, or marked with
 * the trusted.delegate / user.delegate xattr when run by root), each run gets
 * its own child cgroup PARENT/acs-run-PID-N. The sandbox is cloned straight
 * into it (CLONE_INTO_CGROUP), so its cgroup namespace is rooted there;
 * memory.max (with swap off and oom.group) and pids.max are set when the
 * controllers are available, cgroup.kill ends it, and it is removed after
 * the run. Anything else (cgroup v1 or hybrid host, no delegation, missing
 * controllers) leaves the limits to rlimits; the report says which.
 *
 * With controllers to enable and no other process in PARENT, the launcher
 * first moves itself into the leaf PARENT/acs-launcher (cgroup v2 allows
 * controllers in subtree_control only of cgroups without processes).
 */
#pragma once

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#define ACS_CGROUP_LEAF "acs-launcher"
#define ACS_CGROUP_RUN_PREFIX "acs-run-"

typedef struct acs_cgroup {
        int parent_fd;          /* the delegated directory (O_PATH) */
        int dir_fd;             /* the run's cgroup (O_RDONLY|O_DIRECTORY): clone3's cgroup */
        char name[64];          /* acs-run-PID-N, under the parent */
        char path[PATH_MAX + 80]; /* for -v and messages: the cgroupfs path */
        bool memory;            /* memory.max set */
        bool pids;              /* pids.max set */
} acs_cgroup;

#define ACS_CGROUP_NULL ((acs_cgroup){ .parent_fd = -1, .dir_fd = -1 })

/* ---- pure helpers (cgroup-parse.c; unit-tested) ----------------------- */

/* The cgroup v2 path ("0::PATH") in the text of /proc/self/cgroup, copied
 * to buf; -ENOENT when there is none (a cgroup v1 only host). */
int acs_cgroup_parse_self(const char *text, char *buf, size_t size);
/* The parent to use for a launcher in cgroup PATH: PATH itself, or its
 * parent when PATH is already our leaf (…/acs-launcher). NULL for the root. */
const char *acs_cgroup_parent_of(const char *path, char *buf, size_t size);
/* Whether a space-separated controller list ("cpu io memory pids") has NAME. */
bool acs_cgroup_has_controller(const char *list, const char *name);
/* The value of KEY in a flat keyed file ("oom_kill 3\n..."); -1 when absent. */
long long acs_cgroup_keyed(const char *text, const char *key);
/* "acs-run-PID-N" -> PID; 0 when NAME is not one of ours. */
pid_t acs_cgroup_run_pid(const char *name);

/* ---- the syscall side (cgroup.c) -------------------------------------- */

/*
 * Create the run's cgroup with memory.max = memory and pids.max = pids (0:
 * no limit) when a delegated cgroup v2 subtree is usable. Returns 1 with
 * *ret filled, 0 when there is none (*ret_why says why, for -v), never an
 * error: the cgroup is an extra on top of the rlimits.
 */
int acs_cgroup_create(uint64_t memory, uint64_t pids, acs_cgroup *ret, const char **ret_why);
/* doctor: the delegated cgroup a run would use (path, available
 * controllers), or -errno with *ret_why. */
int acs_cgroup_find(char *path, size_t size, char *controllers, size_t csize, const char **ret_why);
/* The MCP server, before forking workers: move into the leaf if that lets
 * the workers' runs enable controllers. Best effort. */
void acs_cgroup_enter_leaf(void);
/* Memory-limit kills seen by the run's cgroup so far (memory.events oom_kill). */
long long acs_cgroup_oom_kills(const acs_cgroup *cg);
/* Kill whatever is left (cgroup.kill), wait until it is empty, remove it. */
void acs_cgroup_destroy(acs_cgroup *cg);

/* clone3.c: clone3() running fn(arg) on args->stack in the child; -1 with
 * errno as clone(). Other architectures than x86-64 fail with ENOSYS and
 * the run goes without a cgroup. */
struct clone_args;
pid_t acs_clone3(struct clone_args *args, size_t size, int (*fn)(void *), void *arg);
