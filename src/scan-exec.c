/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The run path inside the sandbox: one interpreter start-up per run
 * (performance-notes.md). The interpreter is configured as `python3 FLAGS
 * argv` would configure itself, the source is scanned, the verdict goes to
 * the launcher over report_fd, and only then does any of the program run,
 * in that same interpreter, with python3's exit-status rules.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "scan-module.h"
#include "scan-walk.h"

_Noreturn static void die(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
_Noreturn static void die(const char *fmt, ...)
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
        _exit(125);
}

static int xoption(PyConfig *c, PyWideStringList *list, const char *v)
{
        wchar_t *w = Py_DecodeLocale(v, NULL);
        if (!w)
                return -1;
        PyStatus st = PyWideStringList_Append(list, w);
        PyMem_RawFree(w);
        (void)c;
        return PyStatus_Exception(st) ? -1 : 0;
}

/* The profile's [python] flags, as python3's command line would apply them. */
static int apply_flags(PyConfig *c, char *const *flags, char *bad, size_t badlen)
{
        for (char *const *f = flags; f && *f; f++) {
                const char *s = *f;
                if (s[0] != '-' || !s[1])
                        goto unknown;
                if (s[1] == 'X' || s[1] == 'W') {
                        const char *v = s[2] ? s + 2 : f[1];
                        if (!v)
                                goto unknown;
                        if (!s[2])
                                f++;
                        if (xoption(c, s[1] == 'X' ? &c->xoptions : &c->warnoptions, v) < 0)
                                goto unknown;
                        continue;
                }
                for (const char *ch = s + 1; *ch; ch++) {
                        switch (*ch) {
                        case 'I': c->isolated = 1; c->safe_path = 1; c->use_environment = 0;
                                  c->user_site_directory = 0; break;
                        case 'S': c->site_import = 0; break;
                        case 'E': c->use_environment = 0; break;
                        case 's': c->user_site_directory = 0; break;
                        case 'B': c->write_bytecode = 0; break;
                        case 'u': c->buffered_stdio = 0; break;
                        case 'O': c->optimization_level++; break;
                        case 'b': c->bytes_warning++; break;
                        case 'q': c->quiet = 1; break;
                        case 'P': c->safe_path = 1; break;
                        case 'v': c->verbose++; break;
                        default: goto unknown;
                        }
                }
                continue;
unknown:
                snprintf(bad, badlen, "%s", s);
                return -EINVAL;
        }
        return 0;
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

/* One line of JSON, written with one write(2) so the launcher sees it whole. */
static void write_report(int fd, const acs_scan_result *r)
{
        char *buf = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&buf, &len);
        if (!f)
                die("out of memory");
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
        fclose(f);
        for (size_t off = 0; off < len;) {
                ssize_t n = write(fd, buf + off, len - off);
                if (n < 0 && errno == EINTR)
                        continue;
                if (n <= 0)
                        break; /* the launcher went away; it will report that */
                off += n;
        }
        free(buf);
}

/* What python3 exits with for an uncaught SystemExit (as in pythonrun.c). */
static int system_exit_status(void)
{
        PyObject *type, *value, *tb;
        PyErr_Fetch(&type, &value, &tb);
        PyErr_NormalizeException(&type, &value, &tb);
        int status = 0;
        PyObject *code = value ? PyObject_GetAttrString(value, "code") : NULL;
        PyErr_Clear();
        if (!code || code == Py_None) {
                status = 0;
        } else if (PyLong_Check(code)) {
                status = (int)PyLong_AsLong(code);
        } else {
                PyObject *err = PySys_GetObject("stderr");
                if (err && err != Py_None && PyFile_WriteObject(code, err, Py_PRINT_RAW) == 0)
                        PyFile_WriteString("\n", err);
                status = 1;
        }
        PyErr_Clear();
        Py_XDECREF(code);
        Py_XDECREF(type);
        Py_XDECREF(value);
        Py_XDECREF(tb);
        return status;
}

/* Run src as __main__; returns python3's exit status, or -SIGINT. */
static int run_main(const char *src, size_t len, const char *filename, bool command)
{
        PyObject *m = PyImport_AddModule("__main__"), *d = m ? PyModule_GetDict(m) : NULL;
        char *buf = malloc(len + 1);
        if (!d || !buf)
                die("cannot set up __main__");
        memcpy(buf, src, len);
        buf[len] = '\0';
        if (!command) {
                PyObject *f = PyUnicode_DecodeFSDefault(filename);
                if (!f || PyDict_SetItemString(d, "__file__", f) < 0 ||
                    PyDict_SetItemString(d, "__cached__", Py_None) < 0)
                        die("cannot set __file__");
                Py_DECREF(f);
        }
        PyCompilerFlags cf = {.cf_flags = command ? PyCF_IGNORE_COOKIE : 0,
                              .cf_feature_version = PY_MINOR_VERSION};
        PyObject *code = Py_CompileStringExFlags(buf, filename, Py_file_input, &cf, -1);
        free(buf);
        PyObject *v = code ? PyEval_EvalCode(code, d, d) : NULL;
        Py_XDECREF(code);
        if (v) {
                Py_DECREF(v);
                return 0;
        }
        if (PyErr_ExceptionMatches(PyExc_SystemExit))
                return system_exit_status();
        bool sigint = PyErr_ExceptionMatches(PyExc_KeyboardInterrupt);
        PyErr_Print();
        return sigint ? -SIGINT : 1;
}

_Noreturn void acs_scan_exec_impl(const acs_profile *p, char *const argv[], const char *src,
                                  size_t len, const char *filename, int report_fd)
{
        char bad[256];
        int argc = 0;
        while (argv && argv[argc])
                argc++;
        if (argc == 0)
                die("scan: empty argv");
        bool command = strcmp(argv[0], "-c") == 0;
        if (!filename)
                filename = command ? "<string>" : argv[0];

        PyConfig c;
        PyConfig_InitPythonConfig(&c);
        c.parse_argv = 0; /* argv is sys.argv exactly */
        PyStatus st = PyConfig_SetBytesString(&c, &c.program_name,
                                              p->interpreter ? p->interpreter : "/usr/bin/python3");
        if (apply_flags(&c, p->python_flags, bad, sizeof bad) < 0)
                die("profile %s: unsupported python flag '%s' (supported: -I -S -E -s -B -u -O -b -q -P -v -X -W)",
                    p->name ? p->name : "?", bad);
        if (!PyStatus_Exception(st))
                st = PyConfig_SetBytesArgv(&c, argc, argv);
        if (Py_IsInitialized()) {
                /* this process scanned in-process before forking: start afresh */
                (void)PyGILState_Ensure();
                PyOS_AfterFork_Child();
                acs_scan_walk_reset();
                Py_FinalizeEx();
        }
        acs_scan_promote_libpython();
        if (!PyStatus_Exception(st))
                st = Py_InitializeFromConfig(&c);
        PyConfig_Clear(&c);
        if (PyStatus_IsExit(st))
                _exit(st.exitcode);
        if (PyStatus_Exception(st))
                die("cannot initialise %s: %s", p->interpreter ? p->interpreter : "python",
                    st.err_msg ? st.err_msg : "unknown error");

        acs_scan_result res;
        acs_error err = {0};
        if (acs_scan_locked(p, src, len, filename, command, &res, &err) < 0)
                die("scan failed: %s", err.msg);
        write_report(report_fd, &res);
        close(report_fd);
        if (res.verdict == ACS_VERDICT_REJECT)
                _exit(126); /* nothing of the program has run */
        acs_scan_result_clear(&res);

        int status = run_main(src, len, filename, command);
        if (Py_FinalizeEx() < 0 && status >= 0)
                status = 120;
        if (status == -SIGINT) {
                signal(SIGINT, SIG_DFL);
                kill(getpid(), SIGINT);
                status = 130;
        }
        _exit(status & 0xff);
}
