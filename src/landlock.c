/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Landlock: a further layer under the namespaces (security-model.md).
 *
 * The mount namespace already limits the program to the root we built; the
 * Landlock domain says the same thing a second time, from a different part
 * of the kernel: read and execute anywhere in that root, write only in the
 * places that are writable by design (the workspace, the scratch tmpfs
 * mounts, read-write binds, the /dev nodes), and nothing through a file that
 * is not in the root at all (an fd inherited from the host opens nothing but
 * what a rule names). From ABI 6 on, abstract unix sockets and signals are
 * scoped to the domain: the program cannot reach pid 1 or anything outside.
 *
 * Init builds the ruleset after pivot_root (the rules name paths of the new
 * root) and the program process restricts itself with it just before exec.
 * On a kernel without Landlock (or with it disabled) nothing happens and the
 * report says landlock: null.
 */
#include <fcntl.h>
#include <linux/landlock.h>
#include <sys/stat.h>
#include <sys/syscall.h>

#include "sandbox.h"

#ifndef LANDLOCK_ACCESS_FS_TRUNCATE
#define LANDLOCK_ACCESS_FS_TRUNCATE (1ULL << 14)
#endif
#ifndef LANDLOCK_ACCESS_FS_IOCTL_DEV
#define LANDLOCK_ACCESS_FS_IOCTL_DEV (1ULL << 15)
#endif
#ifndef LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET
#define LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET (1ULL << 0)
#define LANDLOCK_SCOPE_SIGNAL (1ULL << 1)
#endif
#ifndef SYS_landlock_create_ruleset
#define SYS_landlock_create_ruleset 444
#define SYS_landlock_add_rule 445
#define SYS_landlock_restrict_self 446
#endif

/* struct landlock_ruleset_attr as of ABI 6; the kernel takes a prefix of it */
struct ruleset_attr {
        uint64_t handled_access_fs;
        uint64_t handled_access_net;
        uint64_t scoped;
};

#define FS_READ (LANDLOCK_ACCESS_FS_EXECUTE | LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_READ_DIR)
/* everything but creating device nodes (which needs CAP_MKNOD anyway) */
#define FS_WRITE_ABI1                                                                                      \
        (LANDLOCK_ACCESS_FS_WRITE_FILE | LANDLOCK_ACCESS_FS_REMOVE_DIR | LANDLOCK_ACCESS_FS_REMOVE_FILE |   \
         LANDLOCK_ACCESS_FS_MAKE_DIR | LANDLOCK_ACCESS_FS_MAKE_REG | LANDLOCK_ACCESS_FS_MAKE_SOCK |        \
         LANDLOCK_ACCESS_FS_MAKE_FIFO | LANDLOCK_ACCESS_FS_MAKE_SYM)

int acs_landlock_abi(void)
{
        long abi = syscall(SYS_landlock_create_ruleset, NULL, 0, LANDLOCK_CREATE_RULESET_VERSION);
        return abi < 0 ? -errno : (int)abi;
}

/* Everything this ABI can handle: what is not handled is not restricted. */
static uint64_t handled_fs(int abi)
{
        uint64_t h = FS_READ | FS_WRITE_ABI1 | LANDLOCK_ACCESS_FS_MAKE_CHAR | LANDLOCK_ACCESS_FS_MAKE_BLOCK;
        if (abi >= 2)
                h |= LANDLOCK_ACCESS_FS_REFER;
        if (abi >= 3)
                h |= LANDLOCK_ACCESS_FS_TRUNCATE;
        if (abi >= 5)
                h |= LANDLOCK_ACCESS_FS_IOCTL_DEV;
        return h;
}

static uint64_t writable(int abi)
{
        return handled_fs(abi) & ~(LANDLOCK_ACCESS_FS_MAKE_CHAR | LANDLOCK_ACCESS_FS_MAKE_BLOCK);
}

/* Allow access below path (a directory) or on it (a file); a path this
 * sandbox does not have is skipped. */
static int allow(int ruleset, const char *path, int fd, uint64_t access, acs_error *err)
{
        _cleanup_close_ int own = -1;
        if (fd < 0) {
                own = open(path, O_PATH | O_CLOEXEC);
                if (own < 0)
                        return errno == ENOENT ? 0 : acs_error_errno(err, -errno, "landlock", "opening %s", path);
                fd = own;
        }
        struct stat st;
        if (fstat(fd, &st) < 0)
                return acs_error_errno(err, -errno, "landlock", "stat %s", path);
        /* files take only the file rights */
        if (!S_ISDIR(st.st_mode))
                access &= LANDLOCK_ACCESS_FS_EXECUTE | LANDLOCK_ACCESS_FS_WRITE_FILE | LANDLOCK_ACCESS_FS_READ_FILE |
                          LANDLOCK_ACCESS_FS_TRUNCATE | LANDLOCK_ACCESS_FS_IOCTL_DEV;
        struct landlock_path_beneath_attr pb = { .allowed_access = access, .parent_fd = fd };
        if (syscall(SYS_landlock_add_rule, ruleset, LANDLOCK_RULE_PATH_BENEATH, &pb, 0) < 0)
                return acs_error_errno(err, -errno, "landlock", "adding the rule for %s", path);
        return 0;
}

int acs_landlock_ruleset(const acs_sandbox_cfg *cfg, int abi, acs_error *err)
{
        static const char *const dev[] = { "/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom" };
        struct ruleset_attr attr = { .handled_access_fs = handled_fs(abi) };
        size_t attr_size = sizeof attr.handled_access_fs;
        uint64_t w = writable(abi);
        int r;

        if (abi >= 6) {
                attr.scoped = LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET | LANDLOCK_SCOPE_SIGNAL;
                attr_size = sizeof attr;
        }
        _cleanup_close_ int rs = (int)syscall(SYS_landlock_create_ruleset, &attr, attr_size, 0);
        if (rs < 0)
                return acs_error_errno(err, -errno, "landlock", "creating the ruleset (ABI %d)", abi);
        /* the root we built: read and execute; the places meant to be written: all */
        if ((r = allow(rs, "/", -1, handled_fs(abi) & (FS_READ | LANDLOCK_ACCESS_FS_IOCTL_DEV), err)) < 0)
                return r;
        if (cfg->ws_mode == ACS_WS_OVERLAY && (r = allow(rs, "/workspace", -1, w, err)) < 0)
                return r;
        /* the program's own /proc files (comm, oom_score_adj...): procfs and the
         * missing capabilities decide what else; a magic link in /proc/self/fd
         * is checked at its target, outside this rule */
        uint64_t proc = FS_READ | LANDLOCK_ACCESS_FS_WRITE_FILE | LANDLOCK_ACCESS_FS_TRUNCATE;
        if ((r = allow(rs, "/proc", -1, handled_fs(abi) & proc, err)) < 0)
                return r;
        if ((r = allow(rs, "/dev/shm", -1, w, err)) < 0)
                return r;
        for (char **t = cfg->tmpfs; t && *t; t++)
                if ((r = allow(rs, *t, -1, w, err)) < 0)
                        return r;
        for (size_t i = 0; i < cfg->n_binds; i++)
                if (!cfg->binds[i].readonly && (r = allow(rs, cfg->binds[i].dest, -1, w, err)) < 0)
                        return r;
        for (size_t i = 0; i < ELEMENTSOF(dev); i++)
                if ((r = allow(rs, dev[i], -1, w, err)) < 0)
                        return r;
        /* the scan module is opened through /proc/self/fd: a host file outside the root */
        if (cfg->scan_module_fd >= 0 &&
            (r = allow(rs, "the scan module", cfg->scan_module_fd, LANDLOCK_ACCESS_FS_READ_FILE, err)) < 0)
                return r;
        return TAKE_FD(rs);
}

int acs_landlock_restrict(int ruleset, acs_error *err)
{
        if (syscall(SYS_landlock_restrict_self, ruleset, 0) < 0)
                return acs_error_errno(err, -errno, "landlock", "landlock_restrict_self");
        return 0;
}
