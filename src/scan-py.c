/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * acs-scan.so: the embedded interpreter. Two entry points, exported as one
 * versioned table (scan-module.h):
 *   scan: in-process scan for `check` and MCP; one isolated interpreter per
 *         process, initialised on first use, no site, no signal handlers.
 *   exec: in the sandboxed program process, in place of execve: configure the
 *         interpreter like `python3 FLAGS... argv`, scan, report, then run the
 *         same source in the same interpreter. One start-up per run.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <dlfcn.h>
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

int acs_scan_error(acs_error *err, int code, const char *fmt, ...)
{
        va_list ap;
        if (!err)
                return code;
        err->code = code;
        if (err->exit_status == 0)
                err->exit_status = 125;
        snprintf(err->stage, sizeof err->stage, "scan");
        va_start(ap, fmt);
        vsnprintf(err->msg, sizeof err->msg, fmt, ap);
        va_end(ap);
        return code;
}

int acs_scan_add_finding(acs_scan_result *r, const char *rule, const char *name, int line, int col,
                         const char *message)
{
        acs_finding *v = realloc(r->findings, (r->n_findings + 1) * sizeof *v);
        if (!v)
                return -ENOMEM;
        r->findings = v;
        acs_finding *f = &v[r->n_findings];
        *f = (acs_finding){.rule = strdup(rule), .name = strdup(name ? name : ""),
                           .line = line, .col = col, .message = strdup(message)};
        if (!f->rule || !f->name || !f->message) {
                free(f->rule);
                free(f->name);
                free(f->message);
                return -ENOMEM;
        }
        r->n_findings++;
        return 0;
}

void acs_scan_result_clear(acs_scan_result *r)
{
        for (size_t i = 0; i < r->n_findings; i++) {
                free(r->findings[i].rule);
                free(r->findings[i].name);
                free(r->findings[i].message);
        }
        free(r->findings);
        *r = (acs_scan_result){0};
}

static double now_ms(void)
{
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

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

/* Finish a result: verdict from the mode, time. */
static void finish(const acs_profile *p, acs_scan_result *ret, double t0)
{
        if (ret->n_findings == 0)
                ret->verdict = ACS_VERDICT_PASS;
        else
                ret->verdict = p->scan_mode == ACS_SCAN_WARN ? ACS_VERDICT_WARN : ACS_VERDICT_REJECT;
        ret->ms = now_ms() - t0;
}

/* Checks that need no parser. Returns 1 when the result is complete. */
static int prescan(const acs_profile *p, const char *src, size_t len, acs_scan_result *ret)
{
        if (p->scan_mode == ACS_SCAN_OFF) {
                ret->verdict = ACS_VERDICT_SKIPPED;
                return 1;
        }
        if (p->max_source && len > p->max_source) {
                char msg[256];
                snprintf(msg, sizeof msg,
                         "the source is longer than max_source of profile %s (%zu > %llu bytes)",
                         p->name ? p->name : "?", len, (unsigned long long)p->max_source);
                return acs_scan_add_finding(ret, R_SIZE, "max_source", 1, 0, msg) < 0 ? -ENOMEM : 1;
        }
        const char *nul = memchr(src, '\0', len);
        if (nul) {
                int line = 1;
                for (const char *c = src; c < nul; c++)
                        line += *c == '\n';
                return acs_scan_add_finding(ret, R_SYNTAX, "syntax", line, 0,
                                            "source code cannot contain null bytes") < 0
                               ? -ENOMEM
                               : 1;
        }
        return 0;
}

/* GIL held. */
int acs_scan_locked(const acs_profile *p, const char *src, size_t len, const char *filename,
                       bool ignore_cookie, acs_scan_result *ret, acs_error *err)
{
        double t0 = now_ms();
        *ret = (acs_scan_result){0};
        int r = prescan(p, src, len, ret);
        if (r < 0)
                return acs_scan_error(err, r, "out of memory");
        if (r == 0) {
                char *buf = malloc(len + 1);
                if (!buf)
                        return acs_scan_error(err, -ENOMEM, "out of memory");
                memcpy(buf, src, len);
                buf[len] = '\0';
                r = acs_scan_walk(p, buf, len, filename ? filename : "<string>", ignore_cookie, ret,
                                  err);
                free(buf);
                if (r < 0) {
                        acs_scan_result_clear(ret);
                        return r;
                }
        }
        if (p->scan_mode != ACS_SCAN_OFF)
                finish(p, ret, t0);
        return 0;
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

static int module_scan(const acs_profile *p, const char *src, size_t len, const char *filename,
                       acs_scan_result *ret, acs_error *err)
{
        acs_scan_result res = {0};
        int r = prescan(p, src, len, &res);
        if (r != 0) {
                if (r < 0)
                        return acs_scan_error(err, r, "out of memory");
                if (p->scan_mode != ACS_SCAN_OFF)
                        finish(p, &res, now_ms());
                *ret = res;
                return 0;
        }
        if ((r = ensure_interpreter(p, err)) < 0)
                return r;
        PyGILState_STATE g = PyGILState_Ensure();
        r = acs_scan_locked(p, src, len, filename, false, ret, err);
        PyGILState_Release(g);
        return r;
}

__attribute__((visibility("default"))) const acs_scan_module acs_scan_module_v1 = {
        .abi = ACS_SCAN_ABI,
        .profile_size = sizeof(acs_profile),
        .result_size = sizeof(acs_scan_result),
        .scan = module_scan,
        .exec = acs_scan_exec_impl,
};
