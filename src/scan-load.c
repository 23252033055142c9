/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Loading acs-scan.so (libpython) for a scan outside a sandbox: `check` and
 * MCP's inspect_code_security. dlopen'ed only when a scan is needed
 * (libpython costs ~6 ms of load time; runs that do not scan must not pay
 * it). Only in acs-launch-full (libacs.a): the static acs-launch cannot dlopen.
 */
#include <dlfcn.h>
#include <limits.h>
#include <pthread.h>

#include "scan-module.h"
#include "scan.h"

/*
 * The module is never closed: libpython cannot be unloaded.
 */
static int load_module(const acs_scan_module **ret, acs_error *err)
{
        char path[PATH_MAX];
        int r = acs_scan_module_path(ACS_SCAN_MODULE_NAME, path, sizeof path, err);
        if (r < 0)
                return r;
        void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
        if (!h)
                return acs_error_set(err, -ENOENT, "scan",
                                     "cannot load the scan module: %s (set ACS_SCAN_MODULE_DIR?)",
                                     dlerror());
        const acs_scan_module *m = dlsym(h, ACS_SCAN_SYMBOL);
        if (!m)
                return acs_error_set(err, -ENOENT, "scan", "%s: no symbol %s", path, ACS_SCAN_SYMBOL);
        if (m->abi != ACS_SCAN_ABI || m->profile_size != sizeof(acs_profile) ||
            m->result_size != sizeof(acs_scan_result))
                return acs_error_set(err, -EPROTO, "scan",
                                     "%s was built for another acs-launch (abi %u, want %u); reinstall it",
                                     path, m->abi, ACS_SCAN_ABI);
        *ret = m;
        return 0;
}

/*
 * The loaded module's table. Like libpython itself this is process state by
 * nature (a dlopen is for the life of the process); remembering it saves a
 * readlink and a dlopen lookup on every warm scan.
 */
static const acs_scan_module *prepared;
static pthread_mutex_t prepared_lock = PTHREAD_MUTEX_INITIALIZER;

static int get_module(const acs_scan_module **ret, acs_error *err)
{
        int r = 0;
        pthread_mutex_lock(&prepared_lock);
        if (!prepared)
                r = load_module(&prepared, err);
        *ret = prepared;
        pthread_mutex_unlock(&prepared_lock);
        return r;
}

int acs_scan_source(const acs_profile *p, const char *src, size_t len, const char *filename, bool command,
                    acs_scan_result *ret, acs_error *err)
{
        const acs_scan_module *m;
        if (p->scan_mode == ACS_SCAN_OFF) {
                *ret = (acs_scan_result){.verdict = ACS_VERDICT_SKIPPED};
                return 0;
        }
        int r = get_module(&m, err);
        if (r < 0)
                return r;
        return m->scan(p, src, len, filename, command, ret, err);
}
