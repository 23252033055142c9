/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The sandbox's root, built from nothing inside the new mount namespace.
 *
 * Layout before pivot_root (all under one tmpfs W mounted over /tmp in our
 * private mount namespace; W's size is the profile's workspace_size, so
 * the overlay upper layer, /tmp and /dev/shm share one bound):
 *
 *   W/root    small tmpfs: the new root (read-only after setup)
 *   W/upper   overlay upper layer    W/work  overlay work dir
 *   W/lower   bind of the host workspace (or an empty dir)
 *   W/t0..    backing dirs for /tmp, /dev/shm and profile tmpfs entries
 *
 * The steps are applied from the plan's mount table (plan.c:
 * acs_mount_ops, which owns their order and says why it is so); each step
 * is one function here.
 *
 * Every host path the launcher names was opened (O_PATH) before clone and
 * is bound through /proc/self/fd, so mounting W over /tmp hides nothing
 * the setup still needs. After pivot_root the old root (with W's own mount)
 * is detached in one step; the overlay, the binds and the fds handed to
 * the launcher keep W's superblock alive until the run is over.
 */
#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sched.h>
#include <signal.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "doctor.h"
#include "plan.h"
#include "sandbox.h"

#define W "/tmp"
#define N W "/root"

/* mount_setattr(2): recursive read-only without touching locked flags. */
static int set_attr(const char *path, bool recursive, uint64_t set)
{
        struct mount_attr attr = { .attr_set = set };
        if (syscall(SYS_mount_setattr, AT_FDCWD, path, recursive ? AT_RECURSIVE : 0, &attr,
                    sizeof attr) < 0)
                return -errno;
        return 0;
}

static int mkdir_p(const char *path, mode_t mode)
{
        char buf[4096];
        int n = snprintf(buf, sizeof buf, "%s", path);
        if (n < 0 || (size_t)n >= sizeof buf)
                return -ENAMETOOLONG;
        for (char *p = buf + 1; *p; p++)
                if (*p == '/') {
                        *p = '\0';
                        if (mkdir(buf, mode) < 0 && errno != EEXIST)
                                return -errno;
                        *p = '/';
                }
        if (mkdir(buf, mode) < 0 && errno != EEXIST)
                return -errno;
        return 0;
}

/* Create the mount point for dest under the new root: a dir, or an empty file. */
static int make_target(const char *inside, bool dir, char *buf, size_t len)
{
        int n = snprintf(buf, len, N "%s", inside);
        if (n < 0 || (size_t)n >= len)
                return -ENAMETOOLONG;
        if (dir)
                return mkdir_p(buf, 0755);
        /* already there (a socket in a read-only overlay bind): mount over it */
        struct stat st;
        if (fstatat(AT_FDCWD, buf, &st, AT_SYMLINK_NOFOLLOW) == 0 && !S_ISDIR(st.st_mode))
                return 0;
        char *slash = strrchr(buf, '/');
        *slash = '\0';
        int r = mkdir_p(buf, 0755);
        *slash = '/';
        if (r < 0)
                return r;
        int fd = open(buf, O_WRONLY | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644);
        if (fd < 0 && errno != EEXIST)
                return -errno;
        if (fd >= 0)
                close(fd);
        return 0;
}

static int bind_fd(int fd, const char *target, bool ro, acs_error *err, const char *what)
{
        char src[64];
        snprintf(src, sizeof src, "/proc/self/fd/%d", fd);
        if (mount(src, target, NULL, MS_BIND | MS_REC, NULL) < 0)
                return acs_error_errno(err, -errno, "mount", "bind %s", what);
        /* nosuid/nodev are only ever added; read-only recursively when asked */
        int r = set_attr(target, true, MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV | (ro ? MOUNT_ATTR_RDONLY : 0));
        if (r < 0)
                return acs_error_errno(err, r, "mount", "making %s %s", what, ro ? "read-only" : "nosuid");
        return 0;
}

/*
 * A read-only directory, shown through overlayfs rather than bound:
 * connect(2) to a unix socket needs write permission on the socket's
 * inode, not a writable mount, so a plain read-only bind leaves every host
 * socket inside reachable (docker.sock, an ssh or gpg agent, X11). An
 * overlay's files are inodes of its own, to which no socket is bound:
 * connect() fails with ECONNREFUSED. The lower is named by fd, so the host
 * path stays out of /proc/self/mountinfo as well. overlayfs wants two lower
 * layers when there is no upper one: the second is the empty W/empty.
 * Mounts below src are not shown (an overlay layer is one file system).
 */
static int overlay_ro(int src_fd, const char *target, const char *what, acs_error *err)
{
        char opts[96];
        snprintf(opts, sizeof opts, "lowerdir=/proc/self/fd/%d:" W "/empty,userxattr", src_fd);
        if (mount("overlay", target, "overlay", MS_RDONLY | MS_NOSUID | MS_NODEV, opts) < 0)
                return acs_error_errno(err, -errno, "mount", "showing %s read-only (through overlayfs)", what);
        return 0;
}

/* How far cover_sockets() looks into a read-write bind. */
#define COVER_MAX_ENTRIES 100000
#define COVER_MAX_DEPTH 64

/*
 * A read-write bind is the host directory itself (an overlay could not
 * write through), so its sockets are reachable unless covered: each one
 * found gets /dev/null bound over it. Recursive on the stack (a
 * vfork-style child must not allocate), bounded in depth and entries; a
 * bigger tree is refused rather than shown unchecked. A socket a host
 * process creates there during the run is not covered: acs-launch(1)
 * says so.
 */
static int cover_sockets(int dfd, char *path, size_t len, int depth, unsigned *count, acs_error *err)
{
        char buf[2048];
        if (depth > COVER_MAX_DEPTH)
                return acs_error_set(err, -ELOOP, "mount", "a read-write bind nests deeper than %d directories "
                                     "(%s): too deep to check for host sockets; bind a smaller directory",
                                     COVER_MAX_DEPTH, path + sizeof N - 1);
        for (;;) {
                long n = syscall(SYS_getdents64, dfd, buf, sizeof buf);
                if (n < 0)
                        return acs_error_errno(err, -errno, "mount", "reading %s", path + sizeof N - 1);
                if (n == 0)
                        return 0;
                for (long off = 0; off < n;) {
                        struct { uint64_t ino; int64_t off; unsigned short reclen; unsigned char type; char name[]; }
                                *d = (void *)(buf + off);
                        off += d->reclen;
                        if (strcmp(d->name, ".") == 0 || strcmp(d->name, "..") == 0)
                                continue;
                        if (++*count > COVER_MAX_ENTRIES)
                                return acs_error_set(err, -E2BIG, "mount",
                                                     "a read-write bind holds more than %d entries: too many to "
                                                     "check for host sockets; bind a smaller directory or use "
                                                     "--ro-bind", COVER_MAX_ENTRIES);
                        unsigned char type = d->type;
                        struct stat st;
                        if (type == DT_UNKNOWN)
                                type = fstatat(dfd, d->name, &st, AT_SYMLINK_NOFOLLOW) < 0 ? DT_UNKNOWN
                                       : S_ISSOCK(st.st_mode) ? DT_SOCK : S_ISDIR(st.st_mode) ? DT_DIR : DT_REG;
                        if (type != DT_SOCK && type != DT_DIR)
                                continue;
                        int k = snprintf(path + len, PATH_MAX - len, "/%s", d->name);
                        if (k < 0 || (size_t)k >= PATH_MAX - len)
                                return acs_error_set(err, -ENAMETOOLONG, "mount", "a path in a read-write bind is too long");
                        int r = 0;
                        if (type == DT_SOCK) {
                                if (mount(N "/dev/null", path, NULL, MS_BIND, NULL) < 0)
                                        r = acs_error_errno(err, -errno, "mount", "covering the host socket %s",
                                                            path + sizeof N - 1);
                        } else {
                                /* a directory we cannot open, the program cannot enter either */
                                int sub = openat(dfd, d->name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
                                if (sub >= 0) {
                                        r = cover_sockets(sub, path, len + (size_t)k, depth + 1, count, err);
                                        close(sub);
                                }
                        }
                        path[len] = '\0';
                        if (r < 0)
                                return r;
                }
        }
}

static uint64_t mount_id(int fd)
{
        struct statx stx;
        if (statx(fd, "", AT_EMPTY_PATH, STATX_MNT_ID, &stx) < 0 || !(stx.stx_mask & STATX_MNT_ID))
                return 0;
        return stx.stx_mnt_id;
}

/*
 * A read-only directory from its parent's shared overlay (plan.h:
 * acs_plan_ro_layers), when that shows exactly what src_fd is: the entry of
 * the parent named like src is src's own directory (not a symlink to it,
 * not another one) and lies on the parent's mount (no mount on it, which an
 * overlay layer would not show). The layer is mounted at W/l<k> on first
 * use; it fails where mounts lie below the parent (the kernel refuses to
 * clone a layer with locked mounts under it). Returns 1 when bound, 0 when
 * the bind needs an overlay of its own.
 */
static int layer_bind(const acs_bind *b, int src_fd, const struct stat *st, int parent_fd, signed char *state,
                      const char *target, acs_error *err)
{
        char layer[32], path[PATH_MAX];
        const char *name = strrchr(b->src, '/') + 1;
        struct stat pst;
        if (parent_fd < 0 || *state < 0 || fstatat(parent_fd, name, &pst, AT_SYMLINK_NOFOLLOW) < 0 ||
            !S_ISDIR(pst.st_mode) || pst.st_dev != st->st_dev || pst.st_ino != st->st_ino)
                return 0;
        uint64_t mnt = mount_id(src_fd);
        if (mnt == 0 || mnt != mount_id(parent_fd))
                return 0;
        snprintf(layer, sizeof layer, W "/l%d", b->layer);
        if (*state == 0) {
                char opts[96];
                snprintf(opts, sizeof opts, "lowerdir=/proc/self/fd/%d:" W "/empty,userxattr", parent_fd);
                if (mkdir(layer, 0755) < 0 ||
                    mount("overlay", layer, "overlay", MS_RDONLY | MS_NOSUID | MS_NODEV, opts) < 0) {
                        *state = -1;
                        return 0;
                }
                *state = 1;
        }
        int n = snprintf(path, sizeof path, "%s/%s", layer, name);
        if (n < 0 || (size_t)n >= sizeof path)
                return 0;
        if (mount(path, target, NULL, MS_BIND, NULL) < 0)
                return acs_error_errno(err, -errno, "mount", "showing %s read-only (through overlayfs)", b->dest);
        int r = set_attr(target, false, MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV);
        if (r < 0)
                return acs_error_errno(err, r, "mount", "making %s read-only", b->dest);
        return 1;
}

/* Bind one entry of the plan at target (N + dest). */
static int mount_bind(const acs_bind *b, int src_fd, int parent_fd, signed char *layer_state, char *target,
                      acs_error *err)
{
        struct stat st;
        if (fstat(src_fd, &st) < 0)
                return acs_error_errno(err, -errno, "mount", "stat %s", b->src);
        /* checked at plan time too; here against a swap since then */
        if (!b->socket && S_ISSOCK(st.st_mode))
                return acs_error_set(err, -EPERM, "mount", "'%s' is a unix socket (a host service): a profile must "
                                     "name it in [filesystem] sockets", b->src);
        if (S_ISDIR(st.st_mode) && b->readonly) {
                int r = b->layer >= 0 ? layer_bind(b, src_fd, &st, parent_fd, layer_state, target, err) : 0;
                return r != 0 ? (r < 0 ? r : 0) : overlay_ro(src_fd, target, b->dest, err);
        }
        int r = bind_fd(src_fd, target, b->readonly, err, b->dest);
        if (r < 0 || !S_ISDIR(st.st_mode))
                return r;
        _cleanup_close_ int dfd = open(target, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (dfd < 0)
                return acs_error_errno(err, -errno, "mount", "opening %s", b->dest);
        unsigned count = 0;
        return cover_sockets(dfd, target, strlen(target), 0, &count, err);
}

static int bind_path(const char *src, const char *target, acs_error *err)
{
        if (mount(src, target, NULL, MS_BIND, NULL) < 0)
                return acs_error_errno(err, -errno, "mount", "bind %s", src);
        return 0;
}

static int write_text(const char *path, const char *data, size_t len, mode_t mode)
{
        _cleanup_close_ int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, mode);
        if (fd < 0)
                return -errno;
        return acs_write_all(fd, data, len);
}

/* /dev with only null, zero, full, random, urandom and the usual links. */
static int build_dev(acs_error *err)
{
        static const char *const nodes[] = { "null", "zero", "full", "random", "urandom" };
        static const char *const links[][2] = {
                { "fd", "/proc/self/fd" },      { "stdin", "/proc/self/fd/0" },
                { "stdout", "/proc/self/fd/1" }, { "stderr", "/proc/self/fd/2" },
        };
        char path[256];
        int r;
        if (mkdir(N "/dev", 0755) < 0)
                return acs_error_errno(err, -errno, "mount", "mkdir /dev");
        for (size_t i = 0; i < ELEMENTSOF(nodes); i++) {
                snprintf(path, sizeof path, N "/dev/%s", nodes[i]);
                if ((r = write_text(path, "", 0, 0644)) < 0)
                        return acs_error_errno(err, r, "mount", "creating %s", path);
                char src[64];
                snprintf(src, sizeof src, "/dev/%s", nodes[i]);
                if ((r = bind_path(src, path, err)) < 0)
                        return r;
        }
        for (size_t i = 0; i < ELEMENTSOF(links); i++) {
                snprintf(path, sizeof path, N "/dev/%s", links[i][0]);
                if (symlink(links[i][1], path) < 0)
                        return acs_error_errno(err, -errno, "mount", "symlink %s", path);
        }
        return 0;
}

/* Replicate the host's merged-/usr links (/bin -> usr/bin, ...). */
static void usr_links(void)
{
        static const char *const names[] = { "bin", "sbin", "lib", "lib32", "lib64", "libx32" };
        for (size_t i = 0; i < ELEMENTSOF(names); i++) {
                char host[32], target[256], path[64];
                snprintf(host, sizeof host, "/%s", names[i]);
                ssize_t n = readlink(host, target, sizeof target - 1);
                if (n <= 0)
                        continue;
                target[n] = '\0';
                snprintf(path, sizeof path, N "/%s", names[i]);
                (void)!symlink(target, path);
        }
}

static int etc_files(const acs_sandbox_cfg *cfg, acs_error *err)
{
        char buf[512];
        uid_t uid = getuid();
        gid_t gid = getgid();
        if (mkdir(N "/etc", 0755) < 0 && errno != EEXIST)
                return acs_error_errno(err, -errno, "mount", "mkdir /etc");
        /* the home directory is the one the environment names ([env] set HOME) */
        const char *home = "/";
        for (char **e = cfg->envp; e && *e; e++)
                if (strncmp(*e, "HOME=/", 6) == 0 && !strpbrk(*e + 5, ":\n") && strlen(*e) < 300)
                        home = *e + 5;
        int n = snprintf(buf, sizeof buf, "sandbox:x:%u:%u:sandbox:%s:/bin/sh\n", uid, gid, home);
        int r = write_text(N "/etc/passwd", buf, (size_t)n, 0644);
        if (r >= 0) {
                n = snprintf(buf, sizeof buf, "sandbox:x:%u:\n", gid);
                r = write_text(N "/etc/group", buf, (size_t)n, 0644);
        }
        if (r >= 0) {
                const char *h = cfg->hostname ? cfg->hostname : "sandbox";
                n = snprintf(buf, sizeof buf, "127.0.0.1\tlocalhost %s\n::1\tlocalhost\n", h);
                r = write_text(N "/etc/hosts", buf, (size_t)n, 0644);
        }
        if (r < 0)
                return acs_error_errno(err, r, "mount", "writing /etc");
        return 0;
}

/*
 * An overlay of an empty directory shows exactly its upper layer, and every
 * overlayfs superblock costs a synchronous RCU grace period when the mount
 * namespace goes (ovl_free_fs -> kern_unmount_array, about 0.3 ms here, on
 * the way from "program ended" to "init gone"). So with no host workspace
 * /workspace is a bind of W/upper itself (read-only: of the empty W/lower).
 * The diff reads the same upper against the same empty lower: a whiteout or
 * an opaque mark the program makes hides nothing there, as in the overlay.
 */
static int bare_workspace(const acs_sandbox_cfg *cfg, int *ret_upper, int *ret_lower, acs_error *err)
{
        bool ro = cfg->ws_mode == ACS_WS_READONLY;
        const char *dir = ro ? W "/lower" : W "/upper";
        if (!ro && mkdir(dir, 0755) < 0)
                return acs_error_errno(err, -errno, "mount", "mkdir upper");
        if (mount(dir, N "/workspace", NULL, MS_BIND, NULL) < 0)
                return acs_error_errno(err, -errno, "mount", "bind the workspace");
        int r = set_attr(N "/workspace", false, MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV | (ro ? MOUNT_ATTR_RDONLY : 0));
        if (r < 0)
                return acs_error_errno(err, r, "mount", "making the workspace %s", ro ? "read-only" : "nosuid");
        if (ro)
                return 0;
        _cleanup_close_ int up = open(W "/upper", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        _cleanup_close_ int lo = open(W "/lower", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (up < 0 || lo < 0)
                return acs_error_errno(err, -errno, "mount", "opening the workspace's layers");
        *ret_upper = TAKE_FD(up);
        *ret_lower = TAKE_FD(lo);
        return 0;
}

static int build_workspace(const acs_sandbox_cfg *cfg, int ws_fd, int *ret_upper, int *ret_lower, acs_error *err)
{
        int r;
        if (mkdir(W "/lower", 0755) < 0)
                return acs_error_errno(err, -errno, "mount", "mkdir lower");
        if (cfg->ws_tree_fd >= 0) {
                /* attach the idmapped clone the launcher prepared */
                if (syscall(SYS_move_mount, cfg->ws_tree_fd, "", AT_FDCWD, W "/lower", MOVE_MOUNT_F_EMPTY_PATH) < 0)
                        return acs_error_errno(err, -errno, "mount", "attaching the idmapped workspace");
                if ((r = set_attr(W "/lower", true, MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV)) < 0)
                        return acs_error_errno(err, r, "mount", "making the workspace read-only");
        } else if (ws_fd >= 0 && (r = bind_fd(ws_fd, W "/lower", true, err, "the workspace")) < 0)
                return r;
        if (cfg->ws_mode == ACS_WS_NONE)
                return 0;
        if (mkdir(N "/workspace", 0755) < 0)
                return acs_error_errno(err, -errno, "mount", "mkdir /workspace");
        if (acs_workspace_bare(cfg))
                return bare_workspace(cfg, ret_upper, ret_lower, err);
        if (cfg->ws_mode == ACS_WS_READONLY) {
                _cleanup_close_ int lo = open(W "/lower", O_PATH | O_DIRECTORY | O_CLOEXEC);
                if (lo < 0)
                        return acs_error_errno(err, -errno, "mount", "opening the workspace");
                return overlay_ro(lo, N "/workspace", "the workspace", err);
        }

        if (mkdir(W "/upper", 0755) < 0 || mkdir(W "/work", 0755) < 0)
                return acs_error_errno(err, -errno, "mount", "mkdir upper");
        /* userxattr: overlay inside a user namespace keeps its whiteout and
         * opaque markers in user.* xattrs; without it removing a lower
         * directory fails with EIO (performance-notes.md). */
        /* Fixed paths of our own: nothing to escape in the option string. */
        static const char opts[] = "lowerdir=" W "/lower,upperdir=" W "/upper,workdir=" W "/work,userxattr";
        if (mount("overlay", N "/workspace", "overlay", MS_NOSUID | MS_NODEV, opts) < 0) {
                r = -errno;
                return acs_preflight_overlay_error(r, err);
        }
        int up = open(W "/upper", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        int lo = open(W "/lower", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (up < 0 || lo < 0) {
                r = -errno;
                if (up >= 0)
                        close(up);
                if (lo >= 0)
                        close(lo);
                return acs_error_errno(err, r, "mount", "opening the overlay layers");
        }
        *ret_upper = up;
        *ret_lower = lo;
        return 0;
}

/*
 * The fresh /proc still shows the host in files any user may read: the
 * session keyring's key descriptions (/proc/keys), the kernel command line,
 * the boot id, timer and scheduler lists with host tasks. Masked as Docker
 * masks them (and these): /dev/null over files, an empty read-only directory
 * over directories, a fresh random boot id. /proc/sys and the other
 * writable-by-root files stay as they are: the program is not root in its
 * user namespace and holds no capability, so it cannot write them.
 */
static int mask_proc(acs_error *err)
{
        static const char *const files[] = { "keys", "key-users", "cmdline", "timer_list", "timer_stats",
                                             "sched_debug", "latency_stats", "kcore" };
        static const char *const dirs[] = { "acpi", "asound", "scsi" };
        char path[64];
        int r;

        /* what this kernel's procfs lacks needs no mask (one mount call each,
         * no stat before it: these run on every start) */
        for (size_t i = 0; i < ELEMENTSOF(files); i++) {
                snprintf(path, sizeof path, N "/proc/%s", files[i]);
                if (mount(N "/dev/null", path, NULL, MS_BIND, NULL) < 0 && errno != ENOENT)
                        return acs_error_errno(err, -errno, "mount", "masking /proc/%s", files[i]);
        }
        for (size_t i = 0; i < ELEMENTSOF(dirs); i++) {
                snprintf(path, sizeof path, N "/proc/%s", dirs[i]);
                if (mount(W "/empty", path, NULL, MS_BIND, NULL) < 0) {
                        if (errno == ENOENT)
                                continue;
                        return acs_error_errno(err, -errno, "mount", "masking /proc/%s", dirs[i]);
                }
                if ((r = set_attr(path, false, MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV)) < 0)
                        return acs_error_errno(err, r, "mount", "masking /proc/%s", dirs[i]);
        }
        /* a boot id of its own, as a fresh boot would have */
        unsigned char u[16];
        char id[40];
        if (getrandom(u, sizeof u, 0) != sizeof u)
                return acs_error_errno(err, -errno, "mount", "getrandom");
        u[6] = (u[6] & 0x0f) | 0x40;
        u[8] = (u[8] & 0x3f) | 0x80;
        snprintf(id, sizeof id, "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x\n", u[0], u[1],
                 u[2], u[3], u[4], u[5], u[6], u[7], u[8], u[9], u[10], u[11], u[12], u[13], u[14], u[15]);
        if ((r = write_text(W "/boot_id", id, strlen(id), 0444)) < 0)
                return acs_error_errno(err, r, "mount", "writing the boot id");
        if ((r = bind_path(W "/boot_id", N "/proc/sys/kernel/random/boot_id", err)) < 0)
                return r;
        if ((r = set_attr(N "/proc/sys/kernel/random/boot_id", false, MOUNT_ATTR_RDONLY)) < 0)
                return acs_error_errno(err, r, "mount", "masking the boot id");
        return 0;
}

int acs_mounts_open(const acs_sandbox_cfg *cfg, int *fds, int *ret_ws_fd, acs_error *err)
{
        for (size_t i = 0; i < cfg->n_binds; i++)
                fds[i] = -1;
        for (size_t i = 0; i < cfg->n_binds; i++) {
                fds[i] = open(cfg->binds[i].src, O_PATH | O_CLOEXEC);
                if (fds[i] < 0 && !(errno == ENOENT && cfg->binds[i].optional))
                        return acs_error_errno(err, -errno, "mount", "cannot open '%s' to bind it", cfg->binds[i].src);
        }
        /* a layer's parent that cannot be opened: its binds get an overlay each */
        for (size_t k = 0; k < cfg->n_ro_layers; k++)
                fds[cfg->n_binds + k] = open(cfg->ro_layers[k], O_PATH | O_DIRECTORY | O_CLOEXEC);
        *ret_ws_fd = -1;
        if (cfg->workspace && cfg->ws_tree_fd < 0 && (*ret_ws_fd = open(cfg->workspace, O_PATH | O_DIRECTORY | O_CLOEXEC)) < 0)
                return acs_error_errno(err, -errno, "workspace", "cannot open the workspace '%s'", cfg->workspace);
        return 0;
}

/* Nothing we do propagates back to the host. */
static int op_private(acs_error *err)
{
        if (mount(NULL, "/", NULL, MS_REC | MS_SLAVE, NULL) < 0)
                return acs_error_errno(err, -errno, "mount", "making / a slave");
        return 0;
}

static int op_scratch(const acs_sandbox_cfg *cfg, acs_error *err)
{
        char opts[128];
        /* size bounds the bytes; nr_inodes bounds what empty files would
         * otherwise cost in kernel memory (one inode per 4 KiB of size) */
        unsigned long long size = cfg->ws_size ?: 128ULL << 20;
        snprintf(opts, sizeof opts, "mode=0755,size=%llu,nr_inodes=%llu", size,
                 size / 4096 > 1024 ? size / 4096 : 1024);
        if (mount("acs-scratch", W, "tmpfs", MS_NOSUID | MS_NODEV, opts) < 0)
                return acs_error_errno(err, -errno, "mount", "tmpfs scratch");
        return 0;
}

static int op_root(const acs_sandbox_cfg *cfg, acs_error *err)
{
        char opts[128];
        if (mkdir(N, 0755) < 0)
                return acs_error_errno(err, -errno, "mount", "mkdir root");
        snprintf(opts, sizeof opts, "mode=0755,size=%llu,nr_inodes=4096",
                 (unsigned long long)(cfg->file_len + (1 << 20)));
        if (mount("acs-root", N, "tmpfs", MS_NOSUID | MS_NODEV, opts) < 0)
                return acs_error_errno(err, -errno, "mount", "tmpfs root");
        return 0;
}

/* the second, empty lower layer of read-only overlays (overlay_ro) */
static int op_empty(acs_error *err)
{
        if (mkdir(W "/empty", 0555) < 0)
                return acs_error_errno(err, -errno, "mount", "mkdir empty");
        return 0;
}

/* One of the profile's tmpfs entries (or /dev/shm): a dir of W, bound. */
static int op_tmpfs(size_t i, const char *dest, acs_error *err)
{
        char backing[64], target[4096];
        int r;
        snprintf(backing, sizeof backing, W "/t%zu", i);
        if (mkdir(backing, 01777) < 0 || chmod(backing, 01777) < 0)
                return acs_error_errno(err, -errno, "mount", "mkdir %s", backing);
        if ((r = make_target(dest, true, target, sizeof target)) < 0)
                return acs_error_errno(err, r, "mount", "creating %s", dest);
        return bind_path(backing, target, err);
}

/* after the workspace, so a bind below /workspace lands on the overlay */
static int op_bind(const acs_bind *b, int src_fd, int parent_fd, signed char *layer_state, acs_error *err)
{
        char target[PATH_MAX];
        int r;
        if (src_fd < 0)
                return 0; /* optional and absent on this host */
        if ((r = make_target(b->dest, b->is_dir, target, sizeof target)) < 0)
                return acs_error_errno(err, r, "mount", "creating mount point %s", b->dest);
        return mount_bind(b, src_fd, parent_fd, layer_state, target, err);
}

static int op_script(const acs_sandbox_cfg *cfg, acs_error *err)
{
        char target[PATH_MAX];
        int r;
        if (mkdir_p(N "/run/acs", 0755) < 0)
                return acs_error_errno(err, -errno, "mount", "mkdir /run/acs");
        snprintf(target, sizeof target, N "/run/acs/%s", cfg->file_name);
        if ((r = write_text(target, cfg->file_data, cfg->file_len, 0444)) < 0)
                return acs_error_errno(err, r, "mount", "placing the script");
        return 0;
}

/* procfs must be mounted from inside the new pid namespace, before the old root goes away. */
static int op_proc(acs_error *err)
{
        if (mkdir(N "/proc", 0555) < 0)
                return acs_error_errno(err, -errno, "mount", "mkdir /proc");
        /* hidepid=ptraceable: init (not dumpable; in the fork-style path a copy
         * of the launcher, whose command line it still shows) is hidden */
        if (mount("proc", N "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, "hidepid=ptraceable") < 0 &&
            (errno != EINVAL ||
             mount("proc", N "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL) < 0)) {
                if (errno == EPERM)
                        return acs_error_set(err, -EPERM, "mount",
                                             "cannot mount a fresh /proc: this host's /proc has mounts over parts of it "
                                             "(a container's masked paths), which the kernel requires to be fully visible; "
                                             "`acs-launch doctor` lists them");
                return acs_error_errno(err, -errno, "mount", "procfs");
        }
        return 0;
}

/* the fast path's pid 1, kept out of the sandbox's view: it is exec'd
 * through this fd after W is detached with the old root */
static int op_init_blob(const void *init_blob, size_t init_len, int *ret_init_fd, acs_error *err)
{
        /* exec-only (0100): init execs it without capabilities, so
         * it cannot read it, and the kernel makes the new image
         * non-dumpable in the exec itself (would_dump) -- no window
         * in which the program could open /proc/1/mem */
        int r;
        if (!init_blob)
                return acs_error_set(err, -EINVAL, "mount", "internal: the plan asks for pid 1's image, none built in");
        if ((r = write_text(W "/acs-init", init_blob, init_len, 0100)) < 0 ||
            (*ret_init_fd = open(W "/acs-init", O_PATH | O_CLOEXEC)) < 0)
                return acs_error_errno(err, r < 0 ? r : -errno, "mount", "placing the sandbox's init");
        return 0;
}

static int op_pivot(acs_error *err)
{
        if (chdir(N) < 0)
                return acs_error_errno(err, -errno, "mount", "chdir new root");
        if (syscall(SYS_pivot_root, ".", ".") < 0)
                return acs_error_errno(err, -errno, "mount", "pivot_root");
        /* The old root is stacked under the new one; one detach drops it
         * and W's own mount with it. */
        if (umount2(".", MNT_DETACH) < 0)
                return acs_error_errno(err, -errno, "mount", "detaching the old root");
        if (chdir("/") < 0)
                return acs_error_errno(err, -errno, "mount", "chdir /");
        return 0;
}

static int op_ro_root(acs_error *err)
{
        int r = set_attr("/", false, MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV);
        return r < 0 ? acs_error_errno(err, r, "mount", "making / read-only") : 0;
}

/*
 * The plan's mount table (plan.c: acs_mount_ops), applied in its order: a
 * flat step table, one switch, nothing allocated (the fast path's child runs
 * in the launcher's memory).
 */
int acs_mounts_build(const acs_sandbox_cfg *cfg, const acs_mount_op *ops, size_t n_ops, const int *src_fds,
                     int ws_fd, int *ret_upper_fd, int *ret_lower_fd, const void *init_blob, size_t init_len,
                     int *ret_init_fd, acs_error *err)
{
        /* per shared layer: 0 not mounted yet, 1 mounted, -1 unusable */
        signed char layer_state[ACS_MAX_RO_LAYERS] = { 0 };
        *ret_upper_fd = *ret_lower_fd = -1;
        for (size_t i = 0; i < n_ops; i++) {
                const acs_mount_op *op = &ops[i];
                int r = 0;
                switch (op->kind) {
                case ACS_MOP_PRIVATE: r = op_private(err); break;
                case ACS_MOP_SCRATCH: r = op_scratch(cfg, err); break;
                case ACS_MOP_ROOT: r = op_root(cfg, err); break;
                case ACS_MOP_EMPTY: r = op_empty(err); break;
                case ACS_MOP_ETC: r = etc_files(cfg, err); break;
                case ACS_MOP_DEV: r = build_dev(err); break;
                case ACS_MOP_TMPFS: r = op_tmpfs(op->index, op->dest, err); break;
                case ACS_MOP_WORKSPACE: r = build_workspace(cfg, ws_fd, ret_upper_fd, ret_lower_fd, err); break;
                case ACS_MOP_BIND: {
                        const acs_bind *b = &cfg->binds[op->index];
                        bool shared = b->layer >= 0 && (size_t)b->layer < cfg->n_ro_layers;
                        r = op_bind(b, src_fds[op->index], shared ? src_fds[cfg->n_binds + b->layer] : -1,
                                    shared ? &layer_state[b->layer] : NULL, err);
                        break;
                }
                case ACS_MOP_USR_LINKS: usr_links(); break;
                case ACS_MOP_SCRIPT: r = op_script(cfg, err); break;
                case ACS_MOP_PROC: r = op_proc(err); break;
                case ACS_MOP_MASK_PROC: r = mask_proc(err); break;
                case ACS_MOP_INIT_BLOB: r = op_init_blob(init_blob, init_len, ret_init_fd, err); break;
                case ACS_MOP_PIVOT: r = op_pivot(err); break;
                case ACS_MOP_RO_ROOT: r = op_ro_root(err); break;
                default: r = acs_error_set(err, -EINVAL, "mount", "internal: unknown mount step %d", (int)op->kind);
                }
                if (r < 0)
                        return r;
        }
        return 0;
}

/* A user namespace that maps 0 to uid/gid, held by a stopped child just long
 * enough to open it. */
static int idmap_userns(uid_t uid, gid_t gid)
{
        int pfd[2];
        if (pipe2(pfd, O_CLOEXEC) < 0)
                return -errno;
        pid_t pid = (pid_t)syscall(SYS_clone, CLONE_NEWUSER | SIGCHLD, NULL, NULL, NULL, 0);
        if (pid < 0) {
                int r = -errno;
                close(pfd[0]);
                close(pfd[1]);
                return r;
        }
        if (pid == 0) {
                char c;
                close(pfd[1]);
                (void)!read(pfd[0], &c, 1); /* until the parent has what it needs */
                _exit(0);
        }
        close(pfd[0]);
        char path[64], line[64];
        int r = 0, fd = -1;
        const char *files[] = { "uid_map", "gid_map" };
        for (int i = 0; i < 2 && r >= 0; i++) {
                snprintf(path, sizeof path, "/proc/%d/%s", (int)pid, files[i]);
                /* 0 -> the sandbox's id; the other ordinary ids as they are */
                unsigned id = i == 0 ? (unsigned)uid : (unsigned)gid;
                int n = id == ACS_ROOT_MAP_LAST
                                ? snprintf(line, sizeof line, "0 %u 1\n1 1 %u\n", id, id - 1)
                                : snprintf(line, sizeof line, "0 %u 1\n", id);
                int mfd = open(path, O_WRONLY | O_CLOEXEC);
                if (mfd < 0 || write(mfd, line, (size_t)n) != n)
                        r = -errno ?: -EIO;
                if (mfd >= 0)
                        close(mfd);
        }
        if (r >= 0) {
                snprintf(path, sizeof path, "/proc/%d/ns/user", (int)pid);
                if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
                        r = -errno;
        }
        close(pfd[1]);
        while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
                ;
        return r < 0 ? r : fd;
}

int acs_idmapped_tree(const char *path, uid_t uid, gid_t gid)
{
        int ns = idmap_userns(uid, gid);
        if (ns < 0)
                return ns;
        int tree = (int)syscall(SYS_open_tree, AT_FDCWD, path, OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC);
        if (tree < 0) {
                int r = -errno;
                close(ns);
                return r;
        }
        /* read-only from the start: only the overlay reads it */
        struct mount_attr attr = { .attr_set = MOUNT_ATTR_IDMAP | MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID |
                                                MOUNT_ATTR_NODEV,
                                   .userns_fd = (uint64_t)ns };
        int r = (int)syscall(SYS_mount_setattr, tree, "", AT_EMPTY_PATH, &attr, sizeof attr);
        r = r < 0 ? -errno : 0;
        close(ns);
        if (r < 0) {
                close(tree);
                return r;
        }
        return tree;
}
