/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * acs-scan.so: the embedded interpreter, for scans outside any sandbox
 * (`check`, MCP inspect_code_security), exported as a versioned table
 * (scan-module.h): one isolated interpreter per process, initialised on first
 * use, no site, no signal handlers. The run path does not come here: the
 * profile's own python3 scans inside the sandbox (scan-ext.c).
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <dlfcn.h>
#include <malloc.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "scan-module.h"
#include "scan-rules.h"
#include "scan-walk.h"

/*
 * Extension modules in lib-dynload do not link libpython: they expect its
 * symbols in the global scope, as in /usr/bin/python3. We were loaded
 * RTLD_LOCAL, so promote whichever object holds libpython to global.
 */
void acs_scan_promote_libpython(void)
{
        Dl_info info;
        if (dladdr((void *)Py_InitializeFromConfig, &info) && info.dli_fname)
                (void)dlopen(info.dli_fname, RTLD_NOW | RTLD_NOLOAD | RTLD_GLOBAL);
}

static int status_error(PyStatus st, acs_error *err)
{
        return acs_scan_error(err, -EIO, "cannot initialise the embedded Python: %s%s%s",
                              st.func ? st.func : "", st.func ? ": " : "",
                              st.err_msg ? st.err_msg : "unknown error");
}

/*
 * The in-process interpreter: libpython is process-global by nature, so this
 * is the one piece of global state here, guarded by a mutex.
 */
static pthread_mutex_t init_lock = PTHREAD_MUTEX_INITIALIZER;
static bool interp_ready;

static int ensure_interpreter(const acs_profile *p, acs_error *err)
{
        int r = 0;
        pthread_mutex_lock(&init_lock);
        if (interp_ready || Py_IsInitialized()) {
                interp_ready = true;
                goto out;
        }
        acs_scan_promote_libpython();
        /*
         * A scan allocates and frees a whole AST's worth of objects. By
         * default glibc gives the freed top of the heap back to the kernel
         * after every scan, and the next scan faults it in again: a third of
         * a warm scan's time on these VMs. Keep up to 32 MiB of it (this
         * process scans again: the MCP server, bench).
         */
        mallopt(M_TRIM_THRESHOLD, 32 << 20);
        mallopt(M_TOP_PAD, 4 << 20);
        PyConfig c;
        PyConfig_InitIsolatedConfig(&c);
        c.site_import = 0;
        c.install_signal_handlers = 0; /* the host (MCP server) owns its signals */
        c.configure_c_stdio = 0;
        c.write_bytecode = 0;
        c.pathconfig_warnings = 0;
        c.parse_argv = 0;
        /*
         * Parsing needs only the core: builtins, sys, the frozen import
         * system (for the built-in _ast and unicodedata). Stopping there
         * (PEP 587's _init_main) skips importing encodings, setting up
         * sys.std*, __main__ and warnings: a third of the start-up.
         */
        c._init_main = 0;
        PyStatus st = PyConfig_SetBytesString(&c, &c.program_name,
                                              p->interpreter ? p->interpreter : "/usr/bin/python3");
        if (!PyStatus_Exception(st))
                st = Py_InitializeFromConfig(&c);
        PyConfig_Clear(&c);
        if (PyStatus_Exception(st)) {
                r = status_error(st, err);
                goto out;
        }
        (void)PyEval_SaveThread(); /* any thread may now scan via PyGILState_Ensure */
        interp_ready = true;
out:
        pthread_mutex_unlock(&init_lock);
        return r;
}

/*
 * A PEP 263 coding declaration in one of the first two lines: a comment
 * holding "coding:" or "coding=" (as in "-*- coding: latin-1 -*-" and
 * "vim: set fileencoding=cp1252"). Over-inclusive is fine: it only decides
 * whether the codecs are made available.
 */
static bool coding_cookie(const char *src, size_t len)
{
        const char *p = src, *end = src + len;
        for (int line = 0; line < 2 && p < end; line++) {
                const char *eol = memchr(p, '\n', (size_t)(end - p));
                const char *e = eol ? eol : end;
                const char *hash = memchr(p, '#', (size_t)(e - p));
                for (const char *c = hash; c && c + 7 <= e; c++)
                        if (memcmp(c, "coding", 6) == 0 && (c[6] == ':' || c[6] == '='))
                                return true;
                p = e + 1;
        }
        return false;
}

/*
 * The parser decodes a file by its coding cookie the way python3 does, but
 * every codec except UTF-8 and Latin-1 lives in the encodings package on
 * disk, which the core-only start-up above leaves out. Finish the start-up
 * (PEP 587's second phase: the path-based importer, the encodings; no site,
 * no signal handlers) the first time a file declares an encoding. GIL held.
 */
static bool interp_main_done;

static void ensure_codecs(void)
{
        if (interp_main_done)
                return;
        interp_main_done = true;
        PyStatus st = _Py_InitializeMain();
        if (PyStatus_Exception(st))
                PyErr_Clear(); /* the parse then reports the unknown encoding as python3 would */
}

static int module_scan(const acs_profile *p, const char *src, size_t len, const char *filename, bool command,
                       acs_scan_result *ret, acs_error *err)
{
        acs_scan_result res = {0};
        int r = acs_scan_prescan(p, src, len, &res);
        if (r != 0) {
                if (r < 0)
                        return acs_scan_error(err, r, "out of memory");
                if (p->scan_mode != ACS_SCAN_OFF)
                        acs_scan_finish(p, &res, acs_scan_now_ms());
                *ret = res;
                return 0;
        }
        if ((r = ensure_interpreter(p, err)) < 0)
                return r;
        PyGILState_STATE g = PyGILState_Ensure();
        if (!command && coding_cookie(src, len))
                ensure_codecs();
        r = acs_scan_locked(p, src, len, filename, command, ret, err);
        PyGILState_Release(g);
        return r;
}

__attribute__((visibility("default"))) const acs_scan_module acs_scan_module_v1 = {
        .abi = ACS_SCAN_ABI,
        .profile_size = sizeof(acs_profile),
        .result_size = sizeof(acs_scan_result),
        .scan = module_scan,
};
