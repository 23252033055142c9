/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * acs-scan-ext.so: the run path's scanner. A CPython extension module that
 * the profile's own python3 loads inside the finished sandbox (after seccomp),
 * so a scanned run pays for one interpreter start-up, and the fast one: the
 * python3 executable, not an embedded libpython loaded by the launcher
 * (performance-notes.md, "scanning inside the sandbox by the interpreter that
 * then runs the code").
 *
 * The launcher runs  python3 FLAGS... -c BOOT X ARGS...  where X is the
 * script's path inside the sandbox or the -c code, and BOOT (scan.h) loads
 * this file from an inherited fd and calls run(policy_fd, module_fd):
 *
 *   1. read the policy (scan-policy.h) from the scan socket, to EOF;
 *   2. scan the source: the file X as it is inside the sandbox (what will
 *      run is what was scanned) or the code X;
 *   3. write the verdict line to the socket and close it. A verdict that
 *      cannot be delivered ends the process: nothing unscanned runs;
 *   4. reject: _exit(126) -- nothing of the program has run;
 *   5. otherwise make sys.argv, sys.path[0] and __main__ what
 *      `python3 FLAGS X ARGS` (or `-c X`) would have made them, hide
 *      BOOT's frame from uncaught tracebacks, and run the code in __main__.
 *      Exceptions, SystemExit and KeyboardInterrupt propagate to python3's
 *      own top level: exit statuses are python3's.
 *
 * Built without linking libpython (its symbols come from the executable,
 * as for every module in lib-dynload) and only for the Python it was
 * compiled against: another version is refused at import.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "scan-policy.h"
#include "scan-rules.h"
#include "scan-walk.h"
#include "session-files.h"

#define VERSION_PREFIX Py_STRINGIFY(PY_MAJOR_VERSION) "." Py_STRINGIFY(PY_MINOR_VERSION) "."

_Noreturn static void die(int status, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
_Noreturn static void die(int status, const char *fmt, ...)
{
        char buf[1200];
        va_list ap;
        va_start(ap, fmt);
        int n = vsnprintf(buf, sizeof buf - 1, fmt, ap);
        va_end(ap);
        if (n < 0)
                n = 0;
        if ((size_t)n > sizeof buf - 2)
                n = sizeof buf - 2;
        buf[n++] = '\n';
        (void)!write(STDERR_FILENO, "acs-launch: ", 12);
        (void)!write(STDERR_FILENO, buf, n);
        _exit(status);
}

/* Read fd to EOF or to limit bytes, whichever comes first. NUL-terminated. */
static int read_upto(int fd, size_t limit, char **ret, size_t *ret_len)
{
        return acs_read_all(fd, limit, ret, ret_len);
}

static void json_str(FILE *f, const char *s)
{
        fputc('"', f);
        for (const unsigned char *c = (const unsigned char *)(s ? s : ""); *c; c++) {
                if (*c == '"' || *c == '\\')
                        fprintf(f, "\\%c", *c);
                else if (*c < 0x20)
                        fprintf(f, "\\u%04x", *c);
                else
                        fputc(*c, f);
        }
        fputc('"', f);
}

static const char *verdict_name(acs_verdict v)
{
        switch (v) {
        case ACS_VERDICT_PASS: return "pass";
        case ACS_VERDICT_REJECT: return "reject";
        case ACS_VERDICT_WARN: return "warn";
        default: return "skipped";
        }
}

/* The verdict as one JSON line (acs_scan_result_from_json reads it). */
static int write_report(int fd, const acs_scan_result *r)
{
        char *buf = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&buf, &len);
        if (!f)
                return -ENOMEM;
        fprintf(f, "{\"verdict\":\"%s\",\"ms\":%.4f,\"findings\":[", verdict_name(r->verdict), r->ms);
        for (size_t i = 0; i < r->n_findings; i++) {
                const acs_finding *x = &r->findings[i];
                fputs(i ? ",{\"rule\":" : "{\"rule\":", f);
                json_str(f, x->rule);
                fputs(",\"name\":", f);
                json_str(f, x->name);
                fprintf(f, ",\"line\":%d,\"col\":%d,\"message\":", x->line, x->col);
                json_str(f, x->message);
                fputc('}', f);
        }
        fputs("]}\n", f);
        if (fclose(f) != 0) {
                free(buf);
                return -ENOMEM;
        }
        int r2 = 0;
        for (size_t off = 0; off < len;) {
                ssize_t n = write(fd, buf + off, len - off);
                if (n < 0 && errno == EINTR)
                        continue;
                if (n <= 0) {
                        r2 = n < 0 ? -errno : -EPIPE;
                        break;
                }
                off += (size_t)n;
        }
        free(buf);
        return r2;
}

/* ---- after the verdict: run the program as python3 would ---- */

/* BOOT's code object: its frames are hidden from uncaught tracebacks. */
static PyObject *boot_code;

/* sys.excepthook while the program runs: python3's own hook, minus BOOT's frame. */
static PyObject *excepthook(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
        (void)self;
        if (nargs != 3) {
                PyErr_SetString(PyExc_TypeError, "excepthook expected 3 arguments");
                return NULL;
        }
        PyObject *tb = args[2];
        while (boot_code && tb && PyTraceBack_Check(tb)) {
                PyTracebackObject *t = (PyTracebackObject *)tb;
                PyCodeObject *code = PyFrame_GetCode(t->tb_frame);
                bool ours = (PyObject *)code == boot_code;
                Py_DECREF(code);
                if (!ours)
                        break;
                tb = t->tb_next ? (PyObject *)t->tb_next : Py_None;
        }
        /* the default hook prints the exception's own __traceback__ */
        if (tb != args[2] && PyExceptionInstance_Check(args[1]) && PyException_SetTraceback(args[1], tb) < 0)
                return NULL;
        PyObject *hook = PySys_GetObject("__excepthook__"); /* borrowed */
        if (!hook) {
                PyErr_SetString(PyExc_RuntimeError, "lost sys.__excepthook__");
                return NULL;
        }
        return PyObject_CallFunctionObjArgs(hook, args[0], args[1], tb, NULL);
}

static PyMethodDef hook_def = { "excepthook", (PyCFunction)(void (*)(void))excepthook, METH_FASTCALL,
                                NULL };

/* sys.argv: ['-c', X, ARGS...] -> [X, ARGS...] (file) or ['-c', ARGS...] (command). */
static int fix_argv(PyObject *argv, bool command)
{
        Py_ssize_t n = PyList_GET_SIZE(argv);
        PyObject *nv = command ? PyList_GetSlice(argv, 2, n) : PyList_GetSlice(argv, 1, n);
        if (!nv)
                return -1;
        if (command) {
                PyObject *c = PyUnicode_FromString("-c");
                if (!c || PyList_Insert(nv, 0, c) < 0) {
                        Py_XDECREF(c);
                        Py_DECREF(nv);
                        return -1;
                }
                Py_DECREF(c);
        }
        int r = PySys_SetObject("argv", nv);
        Py_DECREF(nv);
        return r;
}

/*
 * sys.orig_argv: [python3, FLAGS..., '-c', BOOT, X, ARGS...] -> python3's own
 * [python3, FLAGS..., X, ARGS...] (file) or [..., '-c', X, ARGS...] (command):
 * the program never sees the bootstrap.
 */
static int fix_orig_argv(bool command)
{
        PyObject *o = PySys_GetObject("orig_argv"); /* borrowed */
        if (!o || !PyList_Check(o))
                return 0;
        Py_ssize_t n = PyList_GET_SIZE(o), k;
        for (k = 1; k + 2 < n; k++) {
                PyObject *a = PyList_GET_ITEM(o, k);
                if (PyUnicode_Check(a) && PyUnicode_CompareWithASCIIString(a, "-c") == 0)
                        break;
        }
        if (k + 2 >= n)
                return 0;
        PyObject *nv = PyList_GetSlice(o, 0, n);
        if (!nv)
                return -1;
        /* drop BOOT, and for a file also its '-c' */
        int r = PyList_SetSlice(nv, command ? k + 1 : k, k + 2, NULL);
        if (r == 0)
                r = PySys_SetObject("orig_argv", nv);
        Py_DECREF(nv);
        return r;
}

/*
 * sys.path[0]: python3 FILE puts the script's directory there unless
 * -P/-I (safe_path); -c put '' there, which a script does not get.
 */
static int fix_path0(PyObject *script)
{
        PyObject *flags = PySys_GetObject("flags"), *path = PySys_GetObject("path");
        PyObject *safe = flags ? PyObject_GetAttrString(flags, "safe_path") : NULL;
        if (!safe)
                return -1;
        int is_safe = PyObject_IsTrue(safe);
        Py_DECREF(safe);
        if (is_safe != 0 || !path || !PyList_Check(path) || PyList_GET_SIZE(path) == 0)
                return is_safe < 0 ? -1 : 0;
        PyObject *first = PyList_GET_ITEM(path, 0);
        if (!PyUnicode_Check(first) || PyUnicode_GET_LENGTH(first) != 0)
                return 0;
        PyObject *b = PyUnicode_EncodeFSDefault(script);
        if (!b)
                return -1;
        char real[PATH_MAX];
        const char *s = realpath(PyBytes_AS_STRING(b), real) ? real : PyBytes_AS_STRING(b);
        const char *slash = strrchr(s, '/');
        PyObject *dir = slash ? PyUnicode_DecodeFSDefaultAndSize(s, slash == s ? 1 : slash - s)
                              : PyUnicode_FromString("");
        Py_DECREF(b);
        if (!dir)
                return -1;
        int r = PyList_SetItem(path, 0, dir); /* steals dir */
        return r;
}

/* __main__ as python3 leaves it for a script (or -c), minus BOOT's names. */
static PyObject *prepare_main(PyObject *script, bool command)
{
        PyObject *main = PyImport_AddModule("__main__"); /* borrowed */
        PyObject *d = main ? PyModule_GetDict(main) : NULL;
        if (!d)
                return NULL;
        static const char *const boot_names[] = { "_imp", "S" };
        for (size_t i = 0; i < sizeof boot_names / sizeof *boot_names; i++)
                if (PyDict_DelItemString(d, boot_names[i]) < 0)
                        PyErr_Clear();
        if (command)
                return d;
        if (PyDict_SetItemString(d, "__file__", script) < 0 || PyDict_SetItemString(d, "__cached__", Py_None) < 0)
                return NULL;
        /* python3 FILE sets __loader__ to a SourceFileLoader for __main__ */
        PyObject *ext = PyImport_ImportModule("_frozen_importlib_external");
        PyObject *loader = ext ? PyObject_CallMethod(ext, "SourceFileLoader", "sO", "__main__", script) : NULL;
        Py_XDECREF(ext);
        if (!loader)
                return NULL;
        int r = PyDict_SetItemString(d, "__loader__", loader);
        Py_DECREF(loader);
        return r < 0 ? NULL : d;
}

/*
 * Warm: python3 FLAGS -c BOOT left sys.argv ['-c'], as -c CODE does; only
 * sys.orig_argv's last item, BOOT, becomes the code.
 */
static int fix_orig_argv_warm(PyObject *code)
{
        PyObject *o = PySys_GetObject("orig_argv"); /* borrowed */
        if (!o || !PyList_Check(o) || PyList_GET_SIZE(o) < 1)
                return 0;
        PyObject *nv = PyList_GetSlice(o, 0, PyList_GET_SIZE(o));
        if (!nv)
                return -1;
        Py_INCREF(code);
        int r = PyList_SetItem(nv, PyList_GET_SIZE(nv) - 1, code); /* steals code */
        if (r == 0)
                r = PySys_SetObject("orig_argv", nv);
        Py_DECREF(nv);
        return r;
}

static PyObject *run_program(const char *src, size_t len, PyObject *x, bool command, bool warm)
{
        PyObject *argv = PySys_GetObject("argv");
        if (warm) {
                if (fix_orig_argv_warm(x) < 0)
                        return NULL;
        } else if (!argv || !PyList_Check(argv) || PyList_GET_SIZE(argv) < 2) {
                PyErr_SetString(PyExc_RuntimeError, "acs-launch: sys.argv lost its program");
                return NULL;
        } else if (fix_argv(argv, command) < 0 || fix_orig_argv(command) < 0 || (!command && fix_path0(x) < 0))
                return NULL;
        PyObject *d = prepare_main(x, command);
        if (!d)
                return NULL;

        PyFrameObject *f = PyEval_GetFrame(); /* borrowed: BOOT, our caller */
        if (f) {
                Py_XSETREF(boot_code, (PyObject *)PyFrame_GetCode(f));
                PyObject *hook = PyCFunction_New(&hook_def, NULL);
                if (!hook || PySys_SetObject("excepthook", hook) < 0) {
                        Py_XDECREF(hook);
                        return NULL;
                }
                Py_DECREF(hook);
        }

        if (memchr(src, '\0', len)) { /* mode = warn let it through */
                PyErr_SetString(PyExc_SyntaxError, "source code cannot contain null bytes");
                return NULL;
        }
        PyCompilerFlags cf = _PyCompilerFlags_INIT;
        if (command)
                cf.cf_flags |= PyCF_IGNORE_COOKIE; /* as python3 -c does */
        PyObject *fname = command ? PyUnicode_FromString("<string>") : (Py_INCREF(x), x);
        if (!fname)
                return NULL;
        PyObject *code = Py_CompileStringObject(src, fname, Py_file_input, &cf, -1);
        Py_DECREF(fname);
        if (!code)
                return NULL;
        /*
         * The program's module frame is the bottom of its stack, as under
         * python3 FILE: f_back None, no BOOT frame in traceback.print_stack(),
         * inspect.stack() or a warning's stacklevel. The eval loop links a new
         * entry frame to the thread's current frame; hide BOOT's meanwhile.
         */
#if PY_VERSION_HEX >= 0x030B0000 && PY_VERSION_HEX < 0x030D0000
        PyThreadState *ts = PyThreadState_Get();
        struct _PyInterpreterFrame *caller = ts->cframe->current_frame;
        ts->cframe->current_frame = NULL;
        PyObject *res = PyEval_EvalCode(code, d, d);
        ts->cframe->current_frame = caller;
#else
        PyObject *res = PyEval_EvalCode(code, d, d);
#endif
        Py_DECREF(code);
        return res;
}

/* A session call's exit status, as python3 would exit with the pending exception (or 0). */
static int session_status(bool failed)
{
        if (!failed)
                return 0;
        if (!PyErr_ExceptionMatches(PyExc_SystemExit)) {
                PyErr_Print(); /* sys.excepthook: the traceback on stderr */
                return 1;
        }
        PyObject *type, *value, *tb;
        PyErr_Fetch(&type, &value, &tb);
        PyErr_NormalizeException(&type, &value, &tb);
        PyObject *code = value ? PyObject_GetAttrString(value, "code") : NULL;
        int st = 0;
        if (!code || code == Py_None)
                st = 0;
        else if (PyLong_Check(code))
                st = (int)PyLong_AsLong(code);
        else {
                PyObject *f = PySys_GetObject("stderr"); /* borrowed */
                if (f && PyFile_WriteObject(code, f, Py_PRINT_RAW) == 0)
                        PyFile_WriteString("\n", f);
                st = 1;
        }
        PyErr_Clear();
        Py_XDECREF(code);
        Py_XDECREF(type);
        Py_XDECREF(value);
        Py_XDECREF(tb);
        return st & 0xff;
}

/* sys.NAME.flush(): < 0 when it failed */
static int flush_std(const char *name)
{
        PyObject *f = PySys_GetObject(name); /* borrowed */
        PyObject *r = f && f != Py_None ? PyObject_CallMethod(f, "flush", NULL) : NULL;
        int ret = f && f != Py_None && !r ? -1 : 0;
        Py_XDECREF(r);
        PyErr_Clear();
        return ret;
}

/* m.name() when module m is imported (none is imported for it); errors are printed, as python3's exit does. */
static void call_if_imported(const char *m, const char *name)
{
        PyObject *key = PyUnicode_FromString(m);
        PyObject *mod = key ? PyImport_GetModule(key) : NULL;
        Py_XDECREF(key);
        PyObject *r = mod ? PyObject_CallMethod(mod, name, NULL) : NULL;
        if (mod && !r)
                PyErr_WriteUnraisable(mod);
        Py_XDECREF(r);
        Py_XDECREF(mod);
        PyErr_Clear();
}

/* Flush every object of type t that is not closed. */
static void flush_all_of(PyObject *objs, PyObject *t)
{
        if (!objs || !t || !PyType_Check(t))
                return;
        for (Py_ssize_t i = 0; i < PyList_GET_SIZE(objs); i++) {
                PyObject *o = PyList_GET_ITEM(objs, i); /* borrowed */
                if (!PyObject_TypeCheck(o, (PyTypeObject *)t))
                        continue;
                PyObject *closed = PyObject_GetAttrString(o, "closed");
                int c = closed ? PyObject_IsTrue(closed) : 1;
                Py_XDECREF(closed);
                PyObject *r = c == 0 ? PyObject_CallMethod(o, "flush", NULL) : NULL;
                Py_XDECREF(r);
                PyErr_Clear();
        }
}

/*
 * The gc module, imported once. A first import goes through importlib
 * (about 0.13 ms here): a pooled interpreter makes it while it waits for
 * its call (warm), not in the call.
 */
static PyObject *gc_module(void)
{
        static PyObject *gc;
        if (!gc)
                gc = PyImport_ImportModule("gc");
        return gc;
}

/*
 * The buffers of files that the program never closed and that something
 * outside __main__ still holds: written, as the teardown of python3's
 * modules would write them when it closes them. Text layers first: they
 * flush into their binary buffers.
 */
static void flush_open_files(void)
{
        PyObject *gc = gc_module(), *io = PyImport_ImportModule("_io");
        PyObject *objs = gc ? PyObject_CallMethod(gc, "get_objects", NULL) : NULL;
        PyObject *text = io ? PyObject_GetAttrString(io, "_TextIOBase") : NULL;
        PyObject *bin = io ? PyObject_GetAttrString(io, "_BufferedIOBase") : NULL;
        if (objs && PyList_Check(objs)) {
                flush_all_of(objs, text);
                flush_all_of(objs, bin);
        }
        Py_XDECREF(text);
        Py_XDECREF(bin);
        Py_XDECREF(objs);
        Py_XDECREF(io);
        PyErr_Clear();
}

/*
 * The program is over: ret is what it returned, or NULL with its
 * exception set. End as python3 would -- the exception printed or
 * SystemExit's status taken, non-daemon threads joined, atexit functions
 * run, sys.stdout and sys.stderr flushed (status 120 when that fails),
 * finalizers of garbage run, __main__'s globals cleared (their __del__
 * runs; a file they held is closed), the buffers of files still open
 * written -- then _exit without tearing every module down, which is
 * most of a pooled call's time. The only difference from python3:
 * __del__ of objects still alive outside __main__ does not run, which
 * Python does not promise either (the reference's object.__del__). An
 * uncaught KeyboardInterrupt (python3 ends by SIGINT) and -i return NULL:
 * python3 ends those itself.
 */
static PyObject *end_program(PyObject *ret)
{
        int status = 0;
        if (!ret && PyErr_ExceptionMatches(PyExc_KeyboardInterrupt))
                return NULL;
        if (Py_InspectFlag || getenv("PYTHONINSPECT"))
                return ret;
        if (ret)
                Py_DECREF(ret);
        else
                status = session_status(true);
        call_if_imported("threading", "_shutdown");
        call_if_imported("atexit", "_run_exitfuncs");
        if (flush_std("stdout") < 0)
                status = 120;
        flush_std("stderr");
        PyGC_Collect();
        PyObject *main = PyImport_AddModule("__main__"); /* borrowed */
        if (main)
                _PyModule_Clear(main);
        PyErr_Clear();
        PyGC_Collect();
        flush_open_files();
        if (flush_std("stdout") < 0)
                status = 120;
        flush_std("stderr");
        _exit(status);
}

/*
 * What the interpreter holds before the program runs (the scan's and the
 * standard library's objects) goes to the collector's permanent
 * generation (gc.freeze()): the collections and the walk of end_program
 * see only what the program made.
 */
static void freeze_heap(void)
{
        PyObject *gc = gc_module();
        PyObject *r = gc ? PyObject_CallMethod(gc, "freeze", NULL) : NULL;
        Py_XDECREF(r);
        PyErr_Clear();
}

/* Scan src, write the verdict to fd and close it, then run it (or _exit(126)). */
static PyObject *scan_then_run(int fd, acs_scan_policy *pol, char *src, size_t len, size_t limit, PyObject *x,
                               bool warm)
{
        acs_scan_result res;
        acs_error err = {0};
        int r;
        if (acs_scan_locked(&pol->profile, src, len, pol->filename, pol->command, &res, &err) < 0)
                die(125, "scan failed: %s", err.msg);
        if ((r = write_report(fd, &res)) < 0)
                die(125, "scan: cannot report the verdict: %s", strerror(-r));
        close(fd);
        if (res.verdict == ACS_VERDICT_REJECT)
                _exit(126); /* nothing of the program has run */
        if (!pol->command && len >= limit) /* mode = warn: never run a cut-off file */
                die(125, "%s is longer than max_source; not running a part of it", pol->filename);
        bool command = pol->command;
        acs_scan_result_clear(&res);
        acs_scan_policy_done(pol);
        acs_scan_walk_reset();

        freeze_heap();
        PyObject *ret = run_program(src, len, x, command, warm);
        free(src);
        Py_DECREF(x);
        return end_program(ret);
}

static void read_policy(int fd, size_t max, acs_scan_policy *pol)
{
        char *raw = NULL;
        size_t raw_len = 0;
        int r = read_upto(fd, max + 1, &raw, &raw_len);
        if (r < 0)
                die(125, "scan: cannot read the policy: %s", strerror(-r));
        if (raw_len > max)
                die(125, "scan: the policy is too large");
        r = acs_scan_policy_unpack(raw, raw_len, pol);
        free(raw);
        if (r < 0)
                die(125, "scan: malformed policy from the launcher");
}

static bool fd_args(PyObject *const *args, Py_ssize_t nargs, int *fd, int *mod_fd)
{
        if (nargs != 2 || !PyLong_Check(args[0]) || !PyLong_Check(args[1])) {
                PyErr_SetString(PyExc_TypeError, "expected (fd, module_fd)");
                return false;
        }
        *fd = (int)PyLong_AsLong(args[0]);
        *mod_fd = (int)PyLong_AsLong(args[1]);
        if (PyErr_Occurred())
                return false;
        if (*mod_fd > 2)
                close(*mod_fd); /* mapped; the program must not inherit it */
        return true;
}

/* run(policy_fd, module_fd): see the top of this file. */
static PyObject *run(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
        (void)self;
        int fd, mod_fd, r;
        if (!fd_args(args, nargs, &fd, &mod_fd))
                return NULL;
        acs_scan_policy pol;
        read_policy(fd, ACS_SCAN_POLICY_MAX, &pol);

        PyObject *argv = PySys_GetObject("argv");
        PyObject *x = argv && PyList_Check(argv) && PyList_GET_SIZE(argv) >= 2 ? PyList_GET_ITEM(argv, 1) : NULL;
        if (!x || !PyUnicode_Check(x))
                die(125, "scan: no program on the command line");
        Py_INCREF(x);

        /* The source: the code as python3 -c would encode it, or the file as it is in here. */
        char *src = NULL;
        size_t len = 0;
        /* a file: one byte over max_source is enough for the size finding */
        size_t limit = pol.profile.max_source && pol.profile.max_source < SIZE_MAX / 2
                               ? (size_t)pol.profile.max_source + 1 : SIZE_MAX / 2;
        if (pol.command) {
                PyObject *b = PyUnicode_AsUTF8String(x);
                if (!b)
                        die(125, "scan: the -c code is not valid UTF-8");
                len = (size_t)PyBytes_GET_SIZE(b); /* bounded by the argv limit */
                if (!(src = malloc(len + 1)))
                        die(125, "out of memory");
                memcpy(src, PyBytes_AS_STRING(b), len);
                src[len] = '\0';
                Py_DECREF(b);
        } else {
                PyObject *b = PyUnicode_EncodeFSDefault(x);
                int sfd = b ? open(PyBytes_AS_STRING(b), O_RDONLY | O_CLOEXEC) : -1;
                if (sfd < 0)
                        die(125, "scan: cannot open %s: %s", pol.filename, strerror(errno));
                Py_DECREF(b);
                r = read_upto(sfd, limit, &src, &len);
                close(sfd);
                if (r < 0)
                        die(125, "scan: cannot read %s: %s", pol.filename, strerror(-r));
        }
        return scan_then_run(fd, &pol, src, len, limit, x, false);
}

static int read_exact(int fd, void *buf, size_t len)
{
        for (size_t off = 0; off < len;) {
                ssize_t n = read(fd, (char *)buf + off, len - off);
                if (n < 0 && errno == EINTR)
                        continue;
                if (n <= 0)
                        return n < 0 ? -errno : -EPIPE;
                off += (size_t)n;
        }
        return 0;
}

/* The first parse builds CPython's ~120 _ast types: do it while no code is here. */
static void warm_parser(void)
{
        PyCompilerFlags cf = _PyCompilerFlags_INIT;
        cf.cf_flags = PyCF_ONLY_AST;
        PyObject *t = Py_CompileStringExFlags("import os\nx = [i for i in range(2)]\n", "<warm>", Py_file_input,
                                              &cf, -1);
        Py_XDECREF(t);
        PyErr_Clear();
}

/* The longest code the launcher hands a pooled interpreter (the MCP line bound is 16 MiB). */
#define WARM_CODE_MAX (64u << 20)

/*
 * What a pooled interpreter scans while it waits: most kinds of statement
 * and expression, so that the first call's scan finds its code paths and
 * CPython's objects ready. The result is dropped.
 */
static const char warm_code[] =
        "import math\nfrom json import dumps as d\n"
        "def f(a, *b, k=1, **kw):\n    return [x * 2 for x in range(a) if x] + list(b)\n"
        "class C:\n    y: int = 0\n    def m(self):\n        return self.y\n"
        "try:\n    v = f(3)\nexcept Exception as e:\n    v = None\nfinally:\n    pass\n"
        "with open('x') as fh:\n    s = f'{v!r:>4}' + 'a%s' % (1,)\n"
        "for i in range(2):\n    while not i:\n        break\n"
        "print(d({'a': [1, 2.0, None]}), math.pi, C().m(), lambda q: q, (1, 2)[0], {1} | {2})\n";

static void warm_scan(const acs_scan_policy *pol)
{
        acs_scan_result res;
        acs_error err = {0};
        if (acs_scan_locked(&pol->profile, warm_code, sizeof warm_code - 1, "<warm>", true, &res, &err) >= 0)
                acs_scan_result_clear(&res);
        PyErr_Clear();
}

/*
 * warm(fd, module_fd): a pooled sandbox's interpreter. Read the policy
 * (u32 length, the policy) that the launcher sends as soon as the sandbox
 * exists, and scan warm_code with it while no code is here; then block on
 * fd for 'C' and the code to EOF, and do the same as run() for -c CODE.
 * The launcher that dies (or a pool that closes) leaves EOF instead of
 * 'C': exit without running anything.
 */
static PyObject *warm(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
        (void)self;
        int fd, mod_fd, r;
        if (!fd_args(args, nargs, &fd, &mod_fd))
                return NULL;
        uint32_t plen = 0;
        if ((r = read_exact(fd, &plen, sizeof plen)) < 0)
                _exit(r == -EPIPE ? 0 : 125); /* the pool closed before it was ready */
        if (plen > ACS_SCAN_POLICY_MAX)
                die(125, "scan: the policy is too large");
        char *raw = malloc(plen + 1);
        if (!raw)
                die(125, "out of memory");
        if ((r = read_exact(fd, raw, plen)) < 0)
                die(125, "scan: cannot read the policy: %s", strerror(-r));
        acs_scan_policy pol;
        r = acs_scan_policy_unpack(raw, plen, &pol);
        free(raw);
        if (r < 0 || !pol.command)
                die(125, "scan: malformed policy from the launcher");
        warm_scan(&pol);
        (void)gc_module();
        PyErr_Clear();

        char c = 0;
        if ((r = read_exact(fd, &c, 1)) < 0 || c != 'C')
                _exit(r == -EPIPE ? 0 : 125); /* no call came: the pool is closing */
        char *src = NULL;
        size_t len = 0;
        if ((r = read_upto(fd, WARM_CODE_MAX, &src, &len)) < 0)
                die(125, "scan: cannot read the code: %s", strerror(-r));
        PyObject *x = PyUnicode_DecodeUTF8(src, (Py_ssize_t)len, "surrogateescape");
        if (!x)
                die(125, "scan: the code is not valid UTF-8");
        return scan_then_run(fd, &pol, src, len, SIZE_MAX, x, true);
}

static void say_done(int fd, int status)
{
        char line[32];
        int n = snprintf(line, sizeof line, "D %d\n", status);
        for (int off = 0; off < n;) {
                ssize_t w = write(fd, line + off, (size_t)(n - off));
                if (w < 0 && errno == EINTR)
                        continue;
                if (w <= 0)
                        _exit(125); /* the launcher is gone */
                off += (int)w;
        }
}

/*
 * session(fd, module_fd): a session's interpreter (issue 14). Loop: read
 * u32 policy length, the policy, u32 code length, the code; scan it, write
 * the verdict line; unless refused, run it in __main__ -- whose globals
 * are the session's, kept from call to call -- flush stdout and stderr,
 * and write "D STATUS\n" (the status python3 would exit with; 126 when
 * refused). Between calls, a file or command request (session-files.h)
 * instead of the policy length. EOF instead of a call: the session is over, exit 0.
 */
static PyObject *session(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
        (void)self;
        int fd, mod_fd, r;
        if (!fd_args(args, nargs, &fd, &mod_fd))
                return NULL;
        warm_parser();
        PyObject *d = prepare_main(NULL, true);
        if (!d)
                return NULL;
        for (;;) {
                uint32_t plen = 0, clen = 0;
                if ((r = read_exact(fd, &plen, sizeof plen)) < 0)
                        _exit(r == -EPIPE ? 0 : 125);
                if (plen == ACS_SESSION_OP_WRITE || plen == ACS_SESSION_OP_READ) {
                        if ((r = acs_session_file_serve(fd, plen)) < 0)
                                die(125, "session: a file request failed: %s", strerror(-r));
                        continue;
                }
                if (plen == ACS_SESSION_OP_COMMAND) {
                        /* what the code printed goes out before the command's output */
                        flush_std("stdout");
                        flush_std("stderr");
                        if ((r = acs_session_command_run(fd)) < 0)
                                die(125, "session: a command request failed: %s", strerror(-r));
                        say_done(fd, r);
                        continue;
                }
                char *raw = plen <= ACS_SCAN_POLICY_MAX ? malloc(plen + 1) : NULL;
                if (!raw || read_exact(fd, raw, plen) < 0)
                        die(125, "scan: cannot read the policy");
                acs_scan_policy pol;
                r = acs_scan_policy_unpack(raw, plen, &pol);
                free(raw);
                if (r < 0 || read_exact(fd, &clen, sizeof clen) < 0 || clen > WARM_CODE_MAX)
                        die(125, "scan: malformed call from the launcher");
                char *src = malloc((size_t)clen + 1);
                if (!src || read_exact(fd, src, clen) < 0)
                        die(125, "scan: cannot read the code");
                src[clen] = '\0';
                acs_scan_result res;
                acs_error err = {0};
                if (acs_scan_locked(&pol.profile, src, clen, pol.filename, pol.command, &res, &err) < 0)
                        die(125, "scan failed: %s", err.msg);
                if ((r = write_report(fd, &res)) < 0)
                        die(125, "scan: cannot report the verdict: %s", strerror(-r));
                bool refused = res.verdict == ACS_VERDICT_REJECT;
                acs_scan_result_clear(&res);
                acs_scan_policy_done(&pol);
                acs_scan_walk_reset();
                int st = 126;
                if (!refused) {
                        PyCompilerFlags cf = _PyCompilerFlags_INIT;
                        cf.cf_flags |= PyCF_IGNORE_COOKIE; /* as python3 -c does */
                        PyObject *code = memchr(src, '\0', clen) ? NULL
                                         : Py_CompileStringExFlags(src, "<string>", Py_file_input, &cf, -1);
                        if (!code && !PyErr_Occurred())
                                PyErr_SetString(PyExc_SyntaxError, "source code cannot contain null bytes");
                        PyObject *res2 = code ? PyEval_EvalCode(code, d, d) : NULL;
                        Py_XDECREF(code);
                        st = session_status(!res2);
                        Py_XDECREF(res2);
                }
                free(src);
                flush_std("stdout");
                flush_std("stderr");
                say_done(fd, st);
        }
}

static PyMethodDef methods[] = {
        { "run", (PyCFunction)(void (*)(void))run, METH_FASTCALL, NULL },
        { "warm", (PyCFunction)(void (*)(void))warm, METH_FASTCALL, NULL },
        { "session", (PyCFunction)(void (*)(void))session, METH_FASTCALL, NULL },
        { NULL, NULL, 0, NULL },
};

static struct PyModuleDef module_def = {
        PyModuleDef_HEAD_INIT, "_acs_scan", NULL, -1, methods, NULL, NULL, NULL, NULL,
};

__attribute__((visibility("default"))) PyMODINIT_FUNC PyInit__acs_scan(void);
__attribute__((visibility("default"))) PyMODINIT_FUNC PyInit__acs_scan(void)
{
        const char *v = Py_GetVersion();
        if (strncmp(v, VERSION_PREFIX, strlen(VERSION_PREFIX)) != 0) {
                PyErr_Format(PyExc_ImportError,
                             "acs-launch's scanner is built for Python " VERSION_PREFIX
                             "x, and the profile's interpreter is Python %.20s: use that interpreter "
                             "or set [scan] mode = off",
                             v);
                return NULL;
        }
        return PyModule_Create(&module_def);
}
