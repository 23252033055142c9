/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "hostadvice.h"

bool acs_advice_idmap(int e, const char *path, const acs_host_facts *f, char *buf, size_t size)
{
        if (e < 0)
                e = -e;
        /* the restriction lets an unconfined, unprivileged process create the
         * namespace but not gain capabilities in it: the map write is EPERM */
        if ((e != EPERM && e != EACCES) || f->apparmor_userns <= 0 || f->privileged)
                return false;
        snprintf(buf, size,
                 "writing %s: %s: AppArmor restricts unprivileged user namespaces "
                 "(kernel.apparmor_restrict_unprivileged_userns=%ld) and acs-launch runs without "
                 "its profile; load it with `sudo apparmor_parser -r /etc/apparmor.d/acs-launch` "
                 "(installed by make install and the Debian package; contrib/apparmor/acs-launch), "
                 "then `acs-launch doctor`",
                 path, strerror(e), f->apparmor_userns);
        return true;
}

bool acs_advice_container_seccomp(int e, const char *what, const acs_host_facts *f, char *buf,
                                  size_t size)
{
        if (e < 0)
                e = -e;
        if ((e != EPERM && e != EACCES && e != ENOSYS) || !f->seccomp_filtered)
                return false;
        snprintf(buf, size,
                 "%s is denied by the seccomp filter this process runs under (a container's: "
                 "Docker's and Podman's default profiles allow it only with CAP_SYS_ADMIN); run the "
                 "container with --security-opt seccomp=" ACS_CONTAINER_SECCOMP
                 " (contrib/containers/seccomp.json; Kubernetes: a Localhost seccompProfile) "
                 "rather than seccomp=unconfined",
                 what);
        return true;
}
