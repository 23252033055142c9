/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Table-driven tests of the host and container advice (hostadvice.c): when
 * it speaks, and that what it says names the setting and the fix. */
#include <errno.h>
#include <string.h>

#include "../tap.h"
#include "common.h"
#include "hostadvice.h"

static void test_idmap(void)
{
        static const struct {
                int e;
                acs_host_facts f;
                bool speaks;
        } t[] = {
                { EPERM, { .apparmor_userns = 1 }, true },
                { -EPERM, { .apparmor_userns = 1 }, true },  /* either sign */
                { EACCES, { .apparmor_userns = 2 }, true },
                { EPERM, { .apparmor_userns = 0 }, false },  /* restriction off */
                { EPERM, { .apparmor_userns = -1 }, false }, /* no such sysctl */
                { EPERM, { .apparmor_userns = 1, .privileged = true }, false },
                { ENOSPC, { .apparmor_userns = 1 }, false }, /* another cause */
                { EINVAL, { .apparmor_userns = 1 }, false },
        };
        char buf[700];

        for (size_t i = 0; i < ELEMENTSOF(t); i++) {
                buf[0] = '\0';
                bool r = acs_advice_idmap(t[i].e, "/proc/123/uid_map", &t[i].f, buf, sizeof buf);
                ok(r == t[i].speaks, "idmap advice %zu: %s", i, t[i].speaks ? "speaks" : "silent");
                if (!r)
                        is_str(buf, "", "  buffer untouched");
        }
        acs_host_facts f = { .apparmor_userns = 1 };
        acs_advice_idmap(EPERM, "/proc/123/uid_map", &f, buf, sizeof buf);
        ok(strstr(buf, "writing /proc/123/uid_map: Operation not permitted") != NULL, "names the file and the error");
        ok(strstr(buf, "kernel.apparmor_restrict_unprivileged_userns=1") != NULL, "names the sysctl");
        ok(strstr(buf, "apparmor_parser -r /etc/apparmor.d/acs-launch") != NULL, "names the profile and how to load it");
        ok(strstr(buf, "acs-launch doctor") != NULL, "names doctor");
        ok(strchr(buf, '\n') == NULL, "one line");
}

static void test_container_seccomp(void)
{
        static const struct {
                int e;
                bool filtered, speaks;
        } t[] = {
                { EPERM, true, true },   { -EPERM, true, true }, { ENOSYS, true, true },
                { EACCES, true, true },  { EPERM, false, false }, /* no filter: not seccomp */
                { EINVAL, true, false }, { ENOSPC, true, false },
        };
        char buf[400];

        for (size_t i = 0; i < ELEMENTSOF(t); i++) {
                acs_host_facts f = { .apparmor_userns = -1, .seccomp_filtered = t[i].filtered };
                buf[0] = '\0';
                bool r = acs_advice_container_seccomp(t[i].e, "sethostname", &f, buf, sizeof buf);
                ok(r == t[i].speaks, "seccomp advice %zu: %s", i, t[i].speaks ? "speaks" : "silent");
        }
        acs_host_facts f = { .seccomp_filtered = true };
        acs_advice_container_seccomp(EPERM, "sethostname", &f, buf, sizeof buf);
        ok(strncmp(buf, "sethostname is denied by the seccomp filter", 43) == 0, "names the syscall");
        ok(strstr(buf, "--security-opt seccomp=" ACS_DATADIR "/acs/containers/seccomp.json") != NULL,
           "names the flag and the shipped profile");
        ok(strstr(buf, "Localhost seccompProfile") != NULL, "names the Kubernetes setting");
        ok(strstr(buf, "rather than seccomp=unconfined") != NULL, "steers away from unconfined");
}

int main(void)
{
        test_idmap();
        test_container_seccomp();
        return tap_done();
}
