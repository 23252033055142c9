/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Preflight explanations: a sandbox that cannot start should say which host
 * setting is in the way and the exact command that changes it, not
 * "Operation not permitted". Used by the run path (sandbox.c, mounts.c) and
 * by `acs-launch doctor` (doctor.c, which probes the same settings).
 */
#include <fcntl.h>
#include <grp.h>
#include <linux/landlock.h>
#include <sched.h>
#include <seccomp.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <sys/xattr.h>
#include <linux/magic.h>
#include <linux/seccomp.h>

#include "cgroup.h"
#include "doctor.h"
#include "preflight.h"
#include "hostadvice.h"
#include "profile.h"

/* ---- small helpers ------------------------------------------------------------- */

int acs_preflight_read_long(const char *path, long *ret)
{
        char buf[64];
        int n = acs_read_small_at(AT_FDCWD, path, buf, sizeof buf);
        if (n <= 0)
                return n < 0 ? n : -EINVAL;
        char *end;
        errno = 0;
        long v = strtol(buf, &end, 10);
        if (errno || end == buf)
                return -EINVAL;
        *ret = v;
        return 0;
}

bool acs_preflight_has_word(const char *list, const char *word)
{
        size_t n = strlen(word);
        for (const char *p = list; (p = strstr(p, word)); p += n)
                if ((p == list || p[-1] == ' ' || p[-1] == '\n' || p[-1] == '\t') &&
                    (p[n] == '\0' || p[n] == ' ' || p[n] == '\n' || p[n] == '\t'))
                        return true;
        return false;
}

static void kernel_version(int *major, int *minor)
{
        struct utsname u;
        *major = *minor = 0;
        if (uname(&u) == 0 && sscanf(u.release, "%d.%d", major, minor) != 2)
                *major = *minor = 0;
}

static bool kernel_older(int major, int minor)
{
        int ma, mi;
        kernel_version(&ma, &mi);
        return ma && (ma < major || (ma == major && mi < minor));
}

/* Seccomp: 2 in /proc/self/status: a filter was installed before us (a container's). */
static bool seccomp_filtered(void)
{
        char buf[4096];
        if (acs_read_small_at(AT_FDCWD, "/proc/self/status", buf, sizeof buf) < 0)
                return false;
        const char *p = strstr(buf, "\nSeccomp:");
        return p && strtol(p + strlen("\nSeccomp:"), NULL, 10) == 2;
}

void acs_preflight_host_facts(acs_host_facts *f)
{
        *f = (acs_host_facts){ .apparmor_userns = -1, .privileged = geteuid() == 0 };
        if (acs_preflight_read_long(SYSCTL_APPARMOR, &f->apparmor_userns) < 0)
                f->apparmor_userns = -1;
        f->seccomp_filtered = seccomp_filtered();
}

/* ---- preflight explanations --------------------------------------------------------- */

void acs_preflight_explain(acs_explanation *x, const char *fix, const char *fmt, ...)
{
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(x->problem, sizeof x->problem, fmt, ap);
        va_end(ap);
        snprintf(x->fix, sizeof x->fix, "%s", fix ? fix : "");
}

/* A sysctl that forbids user namespaces for this caller; false if none does. */
static bool userns_sysctl_reason(acs_explanation *x)
{
        long v;
        bool unpriv = geteuid() != 0;

        if (access("/proc/self/ns/user", F_OK) < 0) {
                acs_preflight_explain(x, "use a kernel built with CONFIG_USER_NS (Debian's is)",
                        "this kernel has no user namespaces");
                return true;
        }
        if (acs_preflight_read_long(SYSCTL_MAX_USERNS, &v) == 0 && v == 0) {
                acs_preflight_explain(x, "run `sudo sysctl -w user.max_user_namespaces=15000` (and put it in "
                           "/etc/sysctl.d/ to keep it)",
                        "user namespaces are disabled: user.max_user_namespaces=0");
                return true;
        }
        if (unpriv && acs_preflight_read_long(SYSCTL_USERNS_CLONE, &v) == 0 && v == 0) {
                acs_preflight_explain(x, "run `sudo sysctl -w kernel.unprivileged_userns_clone=1` (and put it "
                           "in /etc/sysctl.d/ to keep it)",
                        "unprivileged user namespaces are disabled: "
                        "kernel.unprivileged_userns_clone=0");
                return true;
        }
        if (unpriv && acs_preflight_read_long(SYSCTL_APPARMOR, &v) == 0 && v != 0) {
                acs_preflight_explain(x, "load acs-launch's AppArmor profile: `sudo apparmor_parser -r "
                           "/etc/apparmor.d/acs-launch` (make install and the Debian package "
                           "install it; contrib/apparmor/acs-launch), rather than turning the "
                           "restriction off host-wide",
                        "user namespaces are restricted by AppArmor: "
                        "kernel.apparmor_restrict_unprivileged_userns=%ld", v);
                return true;
        }
        return false;
}

void acs_preflight_userns_explain(int e, acs_explanation *x)
{
        long v = -1;
        acs_host_facts f;

        if (userns_sysctl_reason(x))
                return;
        acs_preflight_host_facts(&f);
        if (acs_advice_container_seccomp(e, "creating a user namespace", &f, x->fix, sizeof x->fix)) {
                snprintf(x->problem, sizeof x->problem, "denied (%s) by a container's seccomp filter",
                         strerror(e));
                return;
        }
        switch (e) {
        case ENOSPC:
                acs_preflight_read_long(SYSCTL_MAX_USERNS, &v);
                acs_preflight_explain(x, "end other sandboxes, or raise the limit with `sudo sysctl -w "
                           "user.max_user_namespaces=15000`",
                        "the limit on user namespaces is reached (user.max_user_namespaces=%ld "
                        "for this user, or 32 levels of nesting)", v);
                return;
        case EUSERS:
                acs_preflight_explain(x, "run acs-launch from a less nested container",
                        "user namespaces are nested 32 deep already");
                return;
        case EPERM:
        case EACCES:
                acs_preflight_explain(x, "run acs-launch on the host, or give the container a policy that "
                           "allows unshare(CLONE_NEWUSER): on a host with AppArmor, "
                           "--security-opt apparmor=unconfined (see contrib/containers/README.md)",
                        "denied (%s) although no sysctl forbids it: acs-launch probably runs in "
                        "a container or chroot whose policy blocks new user namespaces",
                        strerror(e));
                return;
        case EINVAL:
                acs_preflight_explain(x, "use a kernel built with CONFIG_USER_NS (Debian's is)",
                        "the kernel refused CLONE_NEWUSER (EINVAL)");
                return;
        default:
                acs_preflight_explain(x, "run `acs-launch doctor` to check the host", "%s", strerror(e));
        }
}

static int fill(acs_error *err, int code, const char *stage, const char *what,
                const acs_explanation *x)
{
        if (err)
                err->exit_status = 125;
        return acs_error_set(err, code, stage, "%s: %s%s%s", what, x->problem, *x->fix ? "; " : "",
                             x->fix);
}

int acs_preflight_userns_error(int errnum, acs_error *err)
{
        int e = errnum < 0 ? -errnum : errnum;
        acs_explanation x;
        acs_preflight_userns_explain(e, &x);
        return fill(err, e ? -e : -EPERM, "userns", "cannot create the sandbox's user namespace",
                    &x);
}

int acs_preflight_idmap_error(int errnum, const char *path, acs_error *err)
{
        acs_host_facts f;
        char line[700];

        acs_preflight_host_facts(&f);
        if (!acs_advice_idmap(errnum, path, &f, line, sizeof line))
                return acs_error_errno(err, errnum < 0 ? errnum : -errnum, "userns", "writing %s", path);
        if (err)
                err->exit_status = 125;
        return acs_error_set(err, errnum < 0 ? errnum : -errnum, "userns", "%s", line);
}

int acs_preflight_uts_error(int errnum, acs_error *err)
{
        acs_host_facts f;
        char fix[400];
        int e = errnum < 0 ? -errnum : errnum;

        acs_preflight_host_facts(&f);
        if (!acs_advice_container_seccomp(e, "sethostname", &f, fix, sizeof fix))
                return acs_error_errno(err, -e, "uts", "sethostname");
        if (err)
                err->exit_status = 125;
        return acs_error_set(err, -e, "uts", "sethostname in the sandbox's UTS namespace: %s: %s",
                             strerror(e), fix);
}

static bool fs_supported(const char *fs)
{
        char buf[4096];
        if (acs_read_small_at(AT_FDCWD, "/proc/filesystems", buf, sizeof buf) < 0)
                return true; /* unknown: do not accuse */
        for (char *save = NULL, *l = strtok_r(buf, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
                char *t = strrchr(l, '\t');
                if (strcmp(t ? t + 1 : l, fs) == 0)
                        return true;
        }
        return false;
}

void acs_preflight_overlay_explain(int e, acs_explanation *x)
{
        struct utsname u;

        if (uname(&u) < 0)
                snprintf(u.release, sizeof u.release, "?");
        if (userns_sysctl_reason(x))
                return;
        if (!fs_supported("overlay"))
                acs_preflight_explain(x, "run `sudo modprobe overlay` and add 'overlay' to "
                           "/etc/modules-load.d/acs-launch.conf",
                        "overlayfs is not available");
        else if (kernel_older(5, 11))
                acs_preflight_explain(x, "upgrade the kernel",
                        "kernel %s is older than 5.11, the first that mounts overlayfs in a user "
                        "namespace (option userxattr)", u.release);
        else if (e == EIO || e == EOPNOTSUPP)
                acs_preflight_explain(x, kernel_older(6, 6) ? "upgrade to kernel 6.6 or newer (tmpfs stores "
                                                "user.* xattrs since 6.6)"
                                              : "put the upper layer on tmpfs or ext4",
                        "%s: the upper layer's filesystem does not store user.* extended "
                        "attributes, so overlayfs cannot mark opaque directories", strerror(e));
        else if (e == EPERM || e == EACCES)
                acs_preflight_explain(x, "allow the mount in the security module's policy, or run acs-launch on "
                           "the host; `acs-launch doctor` checks the host",
                        "%s: a security module (AppArmor, SELinux) or a container's policy denies "
                        "the mount", strerror(e));
        else if (e == EINVAL)
                acs_preflight_explain(x, "use a --workspace directory on an ordinary local filesystem (ext4, "
                           "xfs, btrfs, tmpfs)",
                        "overlayfs on kernel %s refused the options (lowerdir, upperdir, workdir, "
                        "userxattr): the lower directory may be on a filesystem overlayfs cannot "
                        "use (another overlay, FUSE, NFS) or be stacked too deep", u.release);
        else
                acs_preflight_explain(x, "run `acs-launch doctor` to check the host", "%s", strerror(e));
}

int acs_preflight_overlay_error(int errnum, acs_error *err)
{
        int e = errnum < 0 ? -errnum : errnum;
        acs_explanation x;
        acs_preflight_overlay_explain(e, &x);
        return fill(err, e ? -e : -EPERM, "overlay",
                    "cannot mount the /workspace overlay inside the user namespace", &x);
}
