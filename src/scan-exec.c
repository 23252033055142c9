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

_Noreturn void acs_scan_exec_impl(const acs_profile *p, char *const argv[], const char *src,
                                  size_t len, const char *filename, int report_fd)
{
        int argc = 0;
        bool command = false;
        while (argv && argv[argc]) {
                if (strcmp(argv[argc], "-c") == 0)
                        command = true;
                argc++;
        }
        if (argc == 0)
                die("scan: empty argv");
        if (!filename)
                filename = "<string>";

        if (Py_IsInitialized()) {
                /* this process scanned in-process before forking: start afresh */
                (void)PyGILState_Ensure();
                PyOS_AfterFork_Child();
                acs_scan_walk_reset();
                Py_FinalizeEx();
        }
        /* Exactly what Py_BytesMain does for `python3 argv...`: python's own
         * option parser, so every flag, sys.argv, sys.flags and -c/-I/-S
         * semantics are the real ones. */
        PyConfig c;
        PyConfig_InitPythonConfig(&c);
        c.parse_argv = 1;
        PyStatus st = PyConfig_SetBytesArgv(&c, argc, argv);
        acs_scan_promote_libpython();
        if (!PyStatus_Exception(st))
                st = Py_InitializeFromConfig(&c);
        PyConfig_Clear(&c);
        if (PyStatus_IsExit(st))
                _exit(st.exitcode);
        if (PyStatus_Exception(st))
                die("cannot initialise %s: %s", argv[0], st.err_msg ? st.err_msg : "unknown error");

        acs_scan_result res;
        acs_error err = {0};
        if (acs_scan_locked(p, src, len, filename, command, &res, &err) < 0)
                die("scan failed: %s", err.msg);
        write_report(report_fd, &res);
        close(report_fd);
        if (res.verdict == ACS_VERDICT_REJECT)
                _exit(126); /* nothing of the program has run */
        acs_scan_result_clear(&res);
        /* Runs the file or -c command, handles SystemExit, KeyboardInterrupt
         * and the 120 flush-failure status as python3 does, and finalises. */
        _exit(Py_RunMain() & 0xff);
}
