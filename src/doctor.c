/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * `acs-launch doctor` (acs-launch-full: /proc's overmounts come from
 * libmount, dlopen'ed). The explanations it shares with the run path are in
 * preflight.c. Every probe that touches namespaces or seccomp runs in a
 * forked child, so the caller's process is never changed.
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

/* ---- probes in a forked child ---------------------------------------------------------- */

typedef struct probe_result {
        int step; /* 0: all passed; else the step that failed */
        int err;  /* its errno */
} probe_result;

typedef void (*probe_fn)(probe_result *r, const void *arg);

static void run_probe(probe_fn fn, const void *arg, probe_result *res)
{
        int p[2];
        *res = (probe_result){ .step = -1, .err = ECHILD };
        if (pipe2(p, O_CLOEXEC) < 0) {
                res->err = errno;
                return;
        }
        pid_t pid = fork();
        if (pid < 0) {
                res->err = errno;
                close(p[0]);
                close(p[1]);
                return;
        }
        if (pid == 0) {
                probe_result r = { 0 };
                close(p[0]);
                fn(&r, arg);
                if (write(p[1], &r, sizeof r) != sizeof r)
                        _exit(1);
                _exit(0);
        }
        close(p[1]);
        ssize_t n;
        do
                n = read(p[0], res, sizeof *res);
        while (n < 0 && errno == EINTR);
        if (n != sizeof *res)
                *res = (probe_result){ .step = -1, .err = ECHILD };
        close(p[0]);
        while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
                ;
}

#define STEP(n, expr)                                                                       \
        do {                                                                                \
                if ((expr) < 0) {                                                           \
                        r->step = (n);                                                      \
                        r->err = errno;                                                     \
                        return;                                                             \
                }                                                                           \
        } while (0)
#define STEP_R(n, expr)                                                                     \
        do {                                                                                \
                int _r = (expr);                                                            \
                if (_r < 0) {                                                               \
                        r->step = (n);                                                      \
                        r->err = -_r;                                                       \
                        return;                                                             \
                }                                                                           \
        } while (0)

enum { P_SETUID = 1, P_UNSHARE, P_SETGROUPS, P_UIDMAP, P_GIDMAP, P_PRIVATE, P_TMPFS, P_DIRS,
       P_OVERLAY, P_OPAQUE, P_XATTR, P_HOSTNAME };

static void write_maps(probe_result *r, uid_t uid, gid_t gid)
{
        char map[64];
        STEP_R(P_SETGROUPS, acs_write_str_at(AT_FDCWD, "/proc/self/setgroups", "deny"));
        snprintf(map, sizeof map, "0 %u 1\n", (unsigned)uid);
        STEP_R(P_UIDMAP, acs_write_str_at(AT_FDCWD, "/proc/self/uid_map", map));
        snprintf(map, sizeof map, "0 %u 1\n", (unsigned)gid);
        STEP_R(P_GIDMAP, acs_write_str_at(AT_FDCWD, "/proc/self/gid_map", map));
}

static void probe_userns(probe_result *r, const void *arg)
{
        const uid_t *as = arg;
        if (as) {
                STEP(P_SETUID, setgroups(0, NULL));
                STEP(P_SETUID, setresgid(*as, *as, *as));
                STEP(P_SETUID, setresuid(*as, *as, *as));
                /* changing uids made us non-dumpable: the maps in /proc/self would be root-owned */
                STEP(P_SETUID, prctl(PR_SET_DUMPABLE, 1, 0, 0, 0));
        }
        uid_t uid = getuid();
        gid_t gid = getgid();
        STEP(P_UNSHARE, unshare(CLONE_NEWUSER));
        write_maps(r, uid, gid);
}

/* Podman's default seccomp profile lets unshare through but not sethostname. */
static void probe_uts(probe_result *r, const void *arg)
{
        uid_t uid = getuid();
        gid_t gid = getgid();
        (void)arg;
        STEP(P_UNSHARE, unshare(CLONE_NEWUSER | CLONE_NEWUTS));
        write_maps(r, uid, gid);
        if (r->step)
                return;
        STEP(P_HOSTNAME, sethostname("acs-doctor", strlen("acs-doctor")));
}

static void probe_overlay(probe_result *r, const void *arg)
{
        uid_t uid = getuid();
        gid_t gid = getgid();
        char v[8];

        STEP(P_UNSHARE, unshare(CLONE_NEWUSER | CLONE_NEWNS));
        write_maps(r, uid, gid);
        if (r->step)
                return;
        STEP(P_PRIVATE, mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL));
        /* over /tmp, in this private mount namespace only */
        STEP(P_TMPFS, mount("tmpfs", "/tmp", "tmpfs", MS_NOSUID | MS_NODEV, "size=1m,mode=0700"));
        STEP(P_DIRS, mkdir("/tmp/l", 0755));
        STEP(P_DIRS, mkdir("/tmp/l/d", 0755));
        STEP(P_DIRS, mkdir("/tmp/u", 0755));
        STEP(P_DIRS, mkdir("/tmp/w", 0755));
        STEP(P_DIRS, mkdir("/tmp/m", 0755));
        STEP(P_DIRS, close(open("/tmp/l/d/f", O_WRONLY | O_CREAT | O_CLOEXEC, 0644)));
        STEP(P_OVERLAY, mount("overlay", "/tmp/m", "overlay", 0,
                              "lowerdir=/tmp/l,upperdir=/tmp/u,workdir=/tmp/w,userxattr"));
        /* deleting and recreating a lower directory needs a whiteout and an opaque xattr */
        STEP(P_OPAQUE, unlink("/tmp/m/d/f"));
        STEP(P_OPAQUE, rmdir("/tmp/m/d"));
        STEP(P_OPAQUE, mkdir("/tmp/m/d", 0755));
        ssize_t n = lgetxattr("/tmp/u/d", "user.overlay.opaque", v, sizeof v);
        if (n != 1 || v[0] != 'y') {
                r->step = P_XATTR;
                r->err = n < 0 ? errno : EIO;
        }
}

static void probe_seccomp(probe_result *r, const void *arg)
{
        struct utsname u;
        STEP(1, prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0));
        scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);
        if (!ctx) {
                r->step = 2;
                r->err = ENOMEM;
                return;
        }
        int k = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(uname), 0);
        if (k == 0)
                k = seccomp_load(ctx);
        seccomp_release(ctx);
        STEP_R(3, k);
        if (uname(&u) == 0 || errno != EPERM) {
                r->step = 4;
                r->err = errno ? errno : EIO;
        }
}

/* ---- the checklist ------------------------------------------------------------------------ */

typedef enum { CHK_OK, CHK_FAIL, CHK_WARN } chk_state;

static void item(FILE *out, chk_state s, const char *what, const char *detail, const char *fix)
{
        static const char *const tags[] = { "[ ok ]", "[FAIL]", "[warn]" };
        fprintf(out, "%s %s: %s\n", tags[s], what, detail);
        if (fix && *fix)
                fprintf(out, "       fix: %s\n", fix);
}

static const char *step_name(int step)
{
        switch (step) {
        case P_SETUID: return "switching to uid 65534";
        case P_UNSHARE: return "unshare";
        case P_SETGROUPS: return "writing setgroups";
        case P_UIDMAP: return "writing uid_map";
        case P_GIDMAP: return "writing gid_map";
        case P_PRIVATE: return "making mounts private";
        case P_TMPFS: return "mounting tmpfs";
        case P_DIRS: return "creating directories";
        case P_OVERLAY: return "mounting overlay";
        case P_OPAQUE: return "replacing a lower directory";
        case P_XATTR: return "reading user.overlay.opaque";
        case P_HOSTNAME: return "sethostname";
        default: return "probe";
        }
}

static void sysctl_summary(char *buf, size_t size)
{
        static const struct {
                const char *path, *name;
        } ctl[] = {
                { SYSCTL_MAX_USERNS, "user.max_user_namespaces" },
                { SYSCTL_USERNS_CLONE, "kernel.unprivileged_userns_clone" },
                { SYSCTL_APPARMOR, "kernel.apparmor_restrict_unprivileged_userns" },
        };
        size_t n = 0;
        buf[0] = '\0';
        for (size_t i = 0; i < ELEMENTSOF(ctl) && n < size; i++) {
                long v;
                if (acs_preflight_read_long(ctl[i].path, &v) == 0)
                        n += snprintf(buf + n, size - n, "%s%s=%ld", n ? ", " : "", ctl[i].name, v);
        }
}

/* Root in the initial user namespace: the only case where probing as 65534 tells something. */
static bool initial_root(void)
{
        char map[128];
        return geteuid() == 0 && acs_read_small_at(AT_FDCWD, "/proc/self/uid_map", map, sizeof map) >= 0 &&
               strstr(map, "4294967295") != NULL;
}

static bool check_userns(FILE *out)
{
        probe_result r;
        char ctl[256], detail[1200];
        acs_explanation x;

        sysctl_summary(ctl, sizeof ctl);
        run_probe(probe_userns, NULL, &r);
        if (r.step == 0) {
                snprintf(detail, sizeof detail, "can be created (%s)", ctl);
                item(out, CHK_OK, "user namespaces", detail, NULL);
        } else {
                acs_preflight_userns_explain(r.err, &x);
                snprintf(detail, sizeof detail, "%s failed: %s", step_name(r.step), x.problem);
                item(out, CHK_FAIL, "user namespaces", detail, x.fix);
        }
        if (initial_root()) {
                /* root maps the sandbox to an unprivileged uid; ordinary users need this */
                uid_t nobody = UNPRIV_UID;
                probe_result u;
                run_probe(probe_userns, &nobody, &u);
                if (u.step == 0)
                        item(out, CHK_OK, "user namespaces for unprivileged users",
                             "can be created (tried as uid 65534)", NULL);
                else {
                        acs_preflight_userns_explain(u.err, &x);
                        snprintf(detail, sizeof detail, "%s failed (tried as uid 65534): %s",
                                 step_name(u.step), x.problem);
                        item(out, CHK_WARN, "user namespaces for unprivileged users", detail,
                             x.fix);
                }
        }
        return r.step == 0;
}

static bool check_uts(FILE *out)
{
        probe_result r;
        char detail[1200];
        acs_explanation x;
        acs_host_facts f;

        run_probe(probe_uts, NULL, &r);
        if (r.step == 0) {
                item(out, CHK_OK, "hostname in a UTS namespace", "sethostname works in a new UTS namespace",
                     NULL);
                return true;
        }
        acs_preflight_host_facts(&f);
        if (r.step < P_HOSTNAME)
                acs_preflight_userns_explain(r.err, &x);
        else if (!acs_advice_container_seccomp(r.err, "sethostname", &f, x.fix, sizeof x.fix))
                acs_preflight_explain(&x, "allow sethostname in the sandbox's own UTS namespace in the security "
                            "module's policy, or run acs-launch on the host",
                        "%s: a security module or a container's policy denies it", strerror(r.err));
        else
                snprintf(x.problem, sizeof x.problem, "%s: denied by a container's seccomp filter",
                         strerror(r.err));
        snprintf(detail, sizeof detail, "%s failed: %s", step_name(r.step), x.problem);
        item(out, CHK_FAIL, "hostname in a UTS namespace", detail, x.fix);
        return false;
}

static bool check_overlay(FILE *out)
{
        probe_result r;
        char detail[1200];
        acs_explanation x;

        run_probe(probe_overlay, NULL, &r);
        if (r.step == 0) {
                item(out, CHK_OK, "overlayfs in a user namespace",
                     "mounts with userxattr; whiteouts and opaque directories work", NULL);
                return true;
        }
        if (r.step <= P_GIDMAP)
                acs_preflight_userns_explain(r.err, &x);
        else if (r.step >= P_OVERLAY)
                /* a mount that works but cannot replace a lower directory lacks xattrs */
                acs_preflight_overlay_explain(r.step >= P_OPAQUE ? EIO : r.err, &x);
        else
                acs_preflight_explain(&x, "run `acs-launch doctor` as another user to compare",
                        "setting up the probe: %s", strerror(r.err));
        snprintf(detail, sizeof detail, "%s failed: %s", step_name(r.step), x.problem);
        item(out, CHK_FAIL, "overlayfs in a user namespace", detail, x.fix);
        return false;
}

static bool check_seccomp(FILE *out)
{
        probe_result r;
        char detail[512];
        int mode = prctl(PR_GET_SECCOMP, 0, 0, 0, 0);
        uint32_t kill = SECCOMP_RET_KILL_PROCESS, eperm = SECCOMP_RET_ERRNO;
        bool have_kill = syscall(SYS_seccomp, SECCOMP_GET_ACTION_AVAIL, 0, &kill) == 0;
        bool have_errno = syscall(SYS_seccomp, SECCOMP_GET_ACTION_AVAIL, 0, &eperm) == 0;

        if (mode < 0) {
                item(out, CHK_FAIL, "seccomp", "not in this kernel (PR_GET_SECCOMP failed)",
                     "use a kernel built with CONFIG_SECCOMP_FILTER");
                return false;
        }
        run_probe(probe_seccomp, NULL, &r);
        if (r.step != 0 || !have_kill || !have_errno) {
                snprintf(detail, sizeof detail,
                         "a test filter failed at step %d (%s); kill_process %s, errno %s", r.step,
                         strerror(r.err), have_kill ? "available" : "missing",
                         have_errno ? "available" : "missing");
                item(out, CHK_FAIL, "seccomp", detail,
                     "use a kernel with CONFIG_SECCOMP_FILTER, 4.14 or newer");
                return false;
        }
        const struct scmp_version *v = seccomp_version();
        snprintf(detail, sizeof detail,
                 "filters load and deny with EPERM; kill_process available; libseccomp "
                 "%u.%u.%u%s",
                 v->major, v->minor, v->micro,
                 mode == 2 ? "; this process is already filtered (a container?), filters stack" : "");
        item(out, CHK_OK, "seccomp", detail, NULL);
        return true;
}

static bool check_pidfd(FILE *out)
{
        int fd = (int)syscall(SYS_pidfd_open, getpid(), 0);
        if (fd < 0) {
                char d[128];
                snprintf(d, sizeof d, "pidfd_open failed: %s", strerror(errno));
                item(out, CHK_FAIL, "pidfd", d, "use a kernel 5.3 or newer");
                return false;
        }
        close(fd);
        item(out, CHK_OK, "pidfd", "pidfd_open works (the launcher tracks the sandbox by pidfd)",
             NULL);
        return true;
}

/* A new procfs inside a user namespace needs /proc fully visible (no overmounts). */
static bool check_proc_visible(FILE *out)
{
        _cleanup_strv_free_ char **over = NULL;
        int n = acs_proc_overmounts(&over);
        if (n < 0) {
                item(out, CHK_WARN, "procfs in a user namespace", "cannot read the mount table with libmount",
                     "install libmount1");
                return true;
        }
        if (n > 0) {
                char d[512];
                snprintf(d, sizeof d, "%d mount%s over /proc (first: %s) keep a new procfs from being mounted",
                         n, n == 1 ? "" : "s", over[0]);
                item(out, CHK_FAIL, "procfs in a user namespace", d,
                     "give the container an unmasked /proc: podman run --security-opt unmask=ALL, "
                     "docker run --security-opt systempaths=unconfined, Kubernetes procMount: Unmasked "
                     "(with hostUsers: false); or run acs-launch outside the container");
                return false;
        }
        item(out, CHK_OK, "procfs in a user namespace", "/proc has no overmounts, a fresh /proc can be mounted",
             NULL);
        return true;
}

static bool check_profile(FILE *out)
{
        _cleanup_profile_ acs_profile *p = NULL;
        acs_error err = { 0 };
        char detail[1400];

        if (acs_profile_load("default", &p, &err) < 0) {
                item(out, CHK_FAIL, "default profile", err.msg,
                     "install acs-launch's profiles (make install) or set ACS_PROFILE_PATH");
                return false;
        }
        if (access(p->interpreter, X_OK) < 0) {
                snprintf(detail, sizeof detail, "%s: interpreter %s: %s", p->path, p->interpreter,
                         strerror(errno));
                item(out, CHK_FAIL, "default profile", detail,
                     "apt-get install python3, or set [python] interpreter");
                return false;
        }
        snprintf(detail, sizeof detail, "%s (interpreter %s)", p->path, p->interpreter);
        item(out, CHK_OK, "default profile", detail, NULL);
        return true;
}

static void check_cgroup(FILE *out)
{
        static const char *const what = "cgroup v2 delegation";
        static const char *const fix_unified =
                "boot with systemd.unified_cgroup_hierarchy=1 (cgroup v2 only), then run acs-launch in "
                "a delegated cgroup: systemd-run --user --scope -p Delegate=yes acs-launch ...";
        static const char *const fix_delegate =
                "run acs-launch in a delegated cgroup: systemd-run --user --scope -p Delegate=yes "
                "acs-launch ...";
        struct statfs sfs;
        char dir[PATH_MAX], ctl[512], detail[PATH_MAX + 1024];
        const char *why = NULL;
        /* hybrid layout: a cgroup2 tree exists, but memory and pids are bound to v1 */
        bool unified = statfs("/sys/fs/cgroup", &sfs) == 0 && (unsigned long)sfs.f_type == CGROUP2_SUPER_MAGIC;

        if (acs_cgroup_find(dir, sizeof dir, ctl, sizeof ctl, &why) < 0) {
                snprintf(detail, sizeof detail, "not available: limits use rlimits (%s%s)", why,
                         unified ? "" : "; this host uses the cgroup v1 or hybrid layout");
                item(out, CHK_WARN, what, detail, unified ? fix_delegate : fix_unified);
                return;
        }
        if (!acs_preflight_has_word(ctl, "memory") || !acs_preflight_has_word(ctl, "pids")) {
                snprintf(detail, sizeof detail,
                         "partly: each run gets its own cgroup under %s (placement, cgroup.kill), but "
                         "memory and processes stay rlimits (controllers there: %s)",
                         dir, ctl[0] ? ctl : "none");
                item(out, CHK_WARN, what, detail,
                     unified ? "delegate the memory and pids controllers too (systemd: Delegate=yes "
                               "includes them when the slice has them)"
                             : fix_unified);
                return;
        }
        snprintf(detail, sizeof detail,
                 "available: each run gets its own cgroup under %s with memory.max and pids.max", dir);
        item(out, CHK_OK, what, detail, NULL);
}

static void check_landlock(FILE *out)
{
        long abi = syscall(SYS_landlock_create_ruleset, NULL, 0, LANDLOCK_CREATE_RULESET_VERSION);
        char detail[128];
        if (abi >= 0) {
                snprintf(detail, sizeof detail, "available, ABI %ld (optional)", abi);
                item(out, CHK_OK, "Landlock", detail, NULL);
        } else if (errno == EOPNOTSUPP)
                item(out, CHK_WARN, "Landlock", "not available: disabled at boot (optional)",
                     "add landlock to the lsm= kernel parameter, e.g. "
                     "lsm=landlock,lockdown,yama,integrity,apparmor,bpf");
        else
                item(out, CHK_WARN, "Landlock", "not available: not in this kernel (optional)",
                     "use a kernel 5.13 or newer built with CONFIG_SECURITY_LANDLOCK");
}

int acs_doctor(FILE *out)
{
        struct utsname u;
        int failed = 0;

        if (uname(&u) < 0)
                snprintf(u.release, sizeof u.release, "?");
        fprintf(out, "acs-launch doctor: kernel %s, running as uid %u\n", u.release,
                (unsigned)geteuid());
        fflush(out); /* the probes fork */
        failed += !check_userns(out);
        fflush(out);
        failed += !check_uts(out);
        fflush(out);
        failed += !check_overlay(out);
        fflush(out);
        failed += !check_seccomp(out);
        failed += !check_pidfd(out);
        failed += !check_proc_visible(out);
        failed += !check_profile(out);
        check_cgroup(out);
        check_landlock(out);
        if (failed)
                fprintf(out, "%d essential check%s failed: sandboxes cannot run on this host\n",
                        failed, failed == 1 ? "" : "s");
        else
                fprintf(out, "all essential checks passed\n");
        fflush(out);
        return failed ? 1 : 0;
}
