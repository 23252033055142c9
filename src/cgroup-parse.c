/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The text side of cgroup v2 (no syscalls): /proc/self/cgroup, controller
 * lists, flat keyed files, and the names the launcher gives its cgroups. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cgroup.h"
#include "common.h"

int acs_cgroup_parse_self(const char *text, char *buf, size_t size)
{
        for (const char *l = text; l && *l;) {
                const char *nl = strchr(l, '\n');
                size_t len = nl ? (size_t)(nl - l) : strlen(l);

                /* cgroup v2: hierarchy id 0, no controllers, then the path */
                if (len >= 4 && strncmp(l, "0::/", 4) == 0) {
                        if (len - 3 >= size)
                                return -ENAMETOOLONG;
                        memcpy(buf, l + 3, len - 3);
                        buf[len - 3] = '\0';
                        /* "(deleted)" or a path outside our cgroup namespace: unusable */
                        if (strstr(buf, "/..") || strchr(buf, ' '))
                                return -ENOENT;
                        return 0;
                }
                l = nl ? nl + 1 : NULL;
        }
        return -ENOENT;
}

const char *acs_cgroup_parent_of(const char *path, char *buf, size_t size)
{
        size_t len = strlen(path);
        const char *slash;

        while (len > 1 && path[len - 1] == '/')
                len--;
        if (len >= size || len <= 1)
                return NULL; /* the root of the hierarchy is nobody's delegation */
        memcpy(buf, path, len);
        buf[len] = '\0';
        slash = strrchr(buf, '/');
        if (slash && strcmp(slash + 1, ACS_CGROUP_LEAF) == 0) {
                if (slash == buf)
                        return NULL;
                buf[slash - buf] = '\0';
        }
        return buf;
}

bool acs_cgroup_has_controller(const char *list, const char *name)
{
        size_t n = strlen(name);

        for (const char *p = list; p && *p;) {
                p += strspn(p, " \t\n");
                size_t len = strcspn(p, " \t\n");
                if (len == n && strncmp(p, name, n) == 0)
                        return true;
                p += len;
        }
        return false;
}

long long acs_cgroup_keyed(const char *text, const char *key)
{
        size_t n = strlen(key);

        for (const char *l = text; l && *l;) {
                if (strncmp(l, key, n) == 0 && l[n] == ' ') {
                        char *end;
                        long long v = strtoll(l + n + 1, &end, 10);
                        if (end != l + n + 1 && v >= 0)
                                return v;
                        return -1;
                }
                l = strchr(l, '\n');
                if (l)
                        l++;
        }
        return -1;
}

pid_t acs_cgroup_run_pid(const char *name)
{
        size_t n = strlen(ACS_CGROUP_RUN_PREFIX);
        char *end;

        if (strncmp(name, ACS_CGROUP_RUN_PREFIX, n) != 0 || name[n] < '1' || name[n] > '9')
                return 0;
        long v = strtol(name + n, &end, 10);
        if (*end != '-' || v <= 0 || v > 0x3fffffff || !end[1])
                return 0;
        for (const char *p = end + 1; *p; p++)
                if (*p < '0' || *p > '9')
                        return 0;
        return (pid_t)v;
}
