/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Mount-table checks for `doctor`, with libmount. libmount is loaded only
 * here, with dlopen: linking it into the launcher would make every run load
 * libblkid, libselinux and libpcre2 and run libselinux's constructor, for
 * nothing the hot path needs.
 *
 * What is checked: a new procfs can be mounted in a user namespace only when
 * the caller's /proc is fully visible (fs/namespace.c mnt_already_visible):
 * container runtimes that mask /proc/kcore, /proc/sys... with overmounts
 * make every sandbox fail at the /proc step. List those overmounts.
 */
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

#include "doctor.h"

typedef struct libmnt_table tbl_t;
typedef struct libmnt_fs fs_t;
typedef struct libmnt_iter iter_t;

int acs_proc_overmounts(char ***ret)
{
        void *h = dlopen("libmount.so.1", RTLD_NOW | RTLD_LOCAL);
        if (!h)
                return -ENOENT;
        tbl_t *(*new_table)(const char *) = (tbl_t * (*)(const char *)) dlsym(h, "mnt_new_table_from_file");
        iter_t *(*new_iter)(int) = (iter_t * (*)(int)) dlsym(h, "mnt_new_iter");
        int (*next_fs)(tbl_t *, iter_t *, fs_t **) = (int (*)(tbl_t *, iter_t *, fs_t **))dlsym(h, "mnt_table_next_fs");
        const char *(*target)(fs_t *) = (const char *(*)(fs_t *))dlsym(h, "mnt_fs_get_target");
        void (*free_iter)(iter_t *) = (void (*)(iter_t *))dlsym(h, "mnt_free_iter");
        void (*unref_table)(tbl_t *) = (void (*)(tbl_t *))dlsym(h, "mnt_unref_table");
        int r = 0;
        if (!new_table || !new_iter || !next_fs || !target || !free_iter || !unref_table) {
                dlclose(h);
                return -ENOSYS;
        }
        tbl_t *t = new_table("/proc/self/mountinfo");
        iter_t *it = new_iter(0 /* MNT_ITER_FORWARD */);
        char **paths = NULL;
        fs_t *fs;
        if (!t || !it)
                r = -ENOMEM;
        while (r == 0 && next_fs(t, it, &fs) == 0) {
                const char *p = target(fs);
                if (p && strncmp(p, "/proc/", 6) == 0 && strncmp(p, "/proc/sys/fs/binfmt_misc", 24) != 0)
                        r = acs_strv_push(&paths, p);
        }
        if (it)
                free_iter(it);
        if (t)
                unref_table(t);
        dlclose(h);
        if (r < 0) {
                acs_strv_free(paths);
                return r;
        }
        *ret = paths;
        return (int)acs_strv_length(paths);
}
