/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The run report as JSON (interfaces.md §3, doc/report.schema.json) and as
 * a short human summary. Pure: a struct in, a json_object or a string out.
 * Every string that reaches JSON is made valid UTF-8 here, whatever the
 * engine put in the struct: an agent must always be able to parse it.
 */
#include <json-c/json.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "report.h"

/* The summary's text; oom: a part was lost, so there is no summary (not one
 * with a hole in it). */
typedef struct strbuf {
        acs_strbuf s;
        bool oom;
} strbuf;

static void sb_add(strbuf *b, const char *s, size_t n)
{
        if (!b->oom && acs_strbuf_add(&b->s, s, n) < 0)
                b->oom = true;
}

static void sb_printf(strbuf *b, const char *fmt, ...) _printf_(2, 3);
static void sb_printf(strbuf *b, const char *fmt, ...)
{
        va_list ap;
        va_start(ap, fmt);
        if (!b->oom && acs_strbuf_vaddf(&b->s, fmt, ap) < 0)
                b->oom = true;
        va_end(ap);
}

/*
 * Length of the valid UTF-8 sequence at s (1..4), or 0 if invalid; then
 * *ret_bad is the length of the maximal invalid subpart (one U+FFFD for it,
 * as the shield does and as Unicode recommends).
 */
static size_t utf8_seq(const unsigned char *s, size_t n, size_t *ret_bad)
{
        *ret_bad = 1;
        if (s[0] < 0x80)
                return 1;
        size_t need;
        unsigned char lo = 0x80, hi = 0xBF;
        if (s[0] >= 0xC2 && s[0] <= 0xDF)
                need = 1;
        else if (s[0] >= 0xE0 && s[0] <= 0xEF) {
                need = 2;
                if (s[0] == 0xE0)
                        lo = 0xA0;
                if (s[0] == 0xED)
                        hi = 0x9F;
        } else if (s[0] >= 0xF0 && s[0] <= 0xF4) {
                need = 3;
                if (s[0] == 0xF0)
                        lo = 0x90;
                if (s[0] == 0xF4)
                        hi = 0x8F;
        } else
                return 0;
        for (size_t i = 1; i <= need; i++) {
                if (i >= n || s[i] < lo || s[i] > hi) {
                        *ret_bad = i;
                        return 0;
                }
                lo = 0x80;
                hi = 0xBF;
        }
        return need + 1;
}

/* s[0..n) with every invalid byte replaced by U+FFFD. */
static void sb_add_utf8(strbuf *b, const char *s, size_t n)
{
        const unsigned char *u = (const unsigned char *)s;
        size_t i = 0, start = 0;
        while (i < n) {
                size_t bad, k = utf8_seq(u + i, n - i, &bad);
                if (k) {
                        i += k;
                        continue;
                }
                sb_add(b, s + start, i - start);
                sb_add(b, "\xef\xbf\xbd", 3);
                i += bad;
                start = i;
        }
        sb_add(b, s + start, n - start);
}

static struct json_object *jstr_len(const char *s, size_t n)
{
        if (!s)
                return NULL; /* JSON null */
        strbuf b = {};
        sb_add_utf8(&b, s, n);
        if (b.oom) {
                acs_strbuf_free(&b.s);
                return NULL;
        }
        struct json_object *j = json_object_new_string_len(b.s.p ? b.s.p : "", (int)b.s.len);
        acs_strbuf_free(&b.s);
        return j;
}

static struct json_object *jstr(const char *s)
{
        return s ? jstr_len(s, strlen(s)) : NULL;
}

/* Milliseconds and seconds: three decimals are plenty, and "0.12" reads
 * better than json-c's default 17 digits. */
static struct json_object *jnum(double v)
{
        char s[64];
        if (!isfinite(v))
                v = 0;
        snprintf(s, sizeof s, "%.3f", v);
        char *e = s + strlen(s) - 1;
        while (*e == '0')
                *e-- = '\0';
        if (*e == '.')
                *e = '\0';
        if (strcmp(s, "-0") == 0)
                strcpy(s, "0");
        return json_object_new_double_s(v, s);
}

static void add(struct json_object *o, const char *k, struct json_object *v)
{
        json_object_object_add(o, k, v);
}

const char *acs_status_to_string(acs_status s)
{
        static const char *const names[] = {
                [ACS_STATUS_EXITED] = "exited",     [ACS_STATUS_TIMEOUT] = "timeout",
                [ACS_STATUS_SIGNALED] = "signaled", [ACS_STATUS_MEMORY] = "memory",
                [ACS_STATUS_REJECTED] = "rejected", [ACS_STATUS_ERROR] = "error",
                [ACS_STATUS_CPU] = "cpu",
        };
        if ((unsigned)s < ELEMENTSOF(names) && names[s])
                return names[s];
        return "error";
}

const char *acs_verdict_to_string(acs_verdict v)
{
        switch (v) {
        case ACS_VERDICT_PASS: return "pass";
        case ACS_VERDICT_REJECT: return "reject";
        case ACS_VERDICT_WARN: return "warn";
        case ACS_VERDICT_SKIPPED:
        default: return "skipped";
        }
}

struct json_object *acs_scan_result_to_json(const acs_scan_result *s)
{
        struct json_object *o = json_object_new_object(), *f = json_object_new_array();
        add(o, "verdict", json_object_new_string(acs_verdict_to_string(s->verdict)));
        add(o, "ms", jnum(s->ms));
        for (size_t i = 0; i < s->n_findings; i++) {
                const acs_finding *x = &s->findings[i];
                struct json_object *e = json_object_new_object();
                add(e, "rule", jstr(x->rule ? x->rule : ""));
                add(e, "name", jstr(x->name ? x->name : ""));
                add(e, "line", json_object_new_int(x->line));
                add(e, "col", json_object_new_int(x->col));
                add(e, "message", jstr(x->message ? x->message : ""));
                json_object_array_add(f, e);
        }
        add(o, "findings", f);
        return o;
}

static struct json_object *stream_to_json(const acs_stream_result *s)
{
        struct json_object *o = json_object_new_object();
        add(o, "text", jstr_len(s->text ? s->text : "", s->text ? s->text_len : 0));
        add(o, "bytes", json_object_new_uint64(s->bytes));
        add(o, "tokens", json_object_new_uint64(s->tokens));
        add(o, "truncated", json_object_new_boolean(s->truncated));
        add(o, "omitted_bytes", json_object_new_uint64(s->omitted_bytes));
        add(o, "omitted_lines", json_object_new_uint64(s->omitted_lines));
        add(o, "omitted_tokens", json_object_new_uint64(s->omitted_tokens));
        return o;
}

static struct json_object *limits_to_json(const acs_limits_result *l)
{
        struct json_object *o = json_object_new_object(), *e = json_object_new_object();
        add(o, "timeout_s", jnum(l->timeout_s));
        add(o, "memory", json_object_new_uint64(l->memory));
        add(o, "processes", json_object_new_uint64(l->processes));
        add(o, "cpu_s", json_object_new_uint64(l->cpu_s));
        add(o, "file_size", json_object_new_uint64(l->file_size));
        add(o, "open_files", json_object_new_uint64(l->open_files));
        add(e, "memory", json_object_new_string(l->memory_enforced ? l->memory_enforced : "none"));
        add(e, "processes", json_object_new_string(l->processes_enforced ? l->processes_enforced : "none"));
        add(e, "cpu", json_object_new_string(l->cpu_enforced ? l->cpu_enforced : "none"));
        add(e, "memfd", json_object_new_string(l->memfd_enforced ? l->memfd_enforced : "none"));
        add(e, "sysv_ipc", json_object_new_string(l->sysv_enforced ? l->sysv_enforced : "none"));
        add(e, "tmpfs", json_object_new_string(l->tmpfs_enforced ? l->tmpfs_enforced : "size"));
        add(o, "enforced", e);
        return o;
}

static struct json_object *confinement_to_json(const acs_confinement *c)
{
        static const char *const ns[] = { "user", "mount", "pid", "net", "ipc", "uts", "cgroup" };
        if (!c->present)
                return NULL;
        struct json_object *o = json_object_new_object(), *a = json_object_new_array();
        for (size_t i = 0; i < ELEMENTSOF(ns); i++)
                json_object_array_add(a, json_object_new_string(ns[i]));
        add(o, "namespaces", a);
        add(o, "capabilities", json_object_new_array());
        add(o, "no_new_privs", json_object_new_boolean(1));
        add(o, "seccomp", json_object_new_boolean(1));
        add(o, "landlock", c->landlock_abi > 0 ? json_object_new_int(c->landlock_abi) : NULL);
        add(o, "cgroup", c->cgroup ? json_object_new_string(c->cgroup) : NULL);
        return o;
}

struct json_object *acs_report_to_json(const acs_report *r)
{
        struct json_object *o = json_object_new_object();
        if (!o)
                return NULL;
        add(o, "schema", json_object_new_string(ACS_REPORT_SCHEMA));
        add(o, "status", json_object_new_string(acs_status_to_string(r->status)));
        add(o, "exit_code", json_object_new_int(r->exit_code));
        add(o, "signal", r->signal > 0 ? json_object_new_int(r->signal) : NULL);
        add(o, "profile", jstr(r->profile));
        struct json_object *scan = acs_scan_result_to_json(&r->scan);
        if (scan && r->scan_bypass && r->scan_bypass[0]) {
                struct json_object *names = json_object_new_array();
                for (char **v = r->scan_bypass; *v; v++)
                        json_object_array_add(names, jstr(*v));
                add(scan, "bypassable", json_object_new_boolean(true));
                add(scan, "bypass_env", names);
        }
        add(o, "scan", scan);
        add(o, "stdout", stream_to_json(&r->out));
        add(o, "stderr", stream_to_json(&r->err));
        add(o, "files", r->have_files ? acs_changes_to_json(&r->files) : NULL);
        if (r->have_apply)
                add(o, "apply", acs_apply_result_to_json(&r->apply));
        else if (r->apply_skipped)
                add(o, "apply", json_object_new_string(r->files.truncated ? "skipped: the list of changes is truncated"
                                                                          : "skipped: the run did not succeed"));
        add(o, "limits", limits_to_json(&r->limits));
        add(o, "confinement", confinement_to_json(&r->confinement));

        struct json_object *u = json_object_new_object();
        add(u, "wall_ms", jnum(r->wall_ms));
        add(u, "user_ms", jnum(r->user_ms));
        add(u, "sys_ms", jnum(r->sys_ms));
        add(u, "max_rss_kb", json_object_new_int64(r->max_rss_kb));
        add(o, "usage", u);

        struct json_object *t = json_object_new_object();
        add(t, "scan_ms", jnum(r->scan_ms));
        add(t, "setup_ms", jnum(r->setup_ms));
        add(t, "run_ms", jnum(r->run_ms));
        add(t, "diff_ms", jnum(r->diff_ms));
        add(o, "timings", t);

        if (r->status == ACS_STATUS_ERROR)
                add(o, "error", jstr(r->error ? r->error : "unknown error"));
        return o;
}

char *acs_report_to_string(const acs_report *r, bool pretty)
{
        struct json_object *o = acs_report_to_json(r);
        if (!o)
                return NULL;
        int flags = JSON_C_TO_STRING_NOSLASHESCAPE |
                    (pretty ? JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED : JSON_C_TO_STRING_PLAIN);
        const char *s = json_object_to_json_string_ext(o, flags);
        char *copy = s ? strdup(s) : NULL;
        json_object_put(o);
        return copy;
}

char *acs_report_error_string(const char *msg, int exit_code)
{
        acs_report r = { .status = ACS_STATUS_ERROR, .exit_code = exit_code, .error = (char *)msg };
        return acs_report_to_string(&r, false);
}

void acs_scan_result_done(acs_scan_result *s)
{
        if (!s)
                return;
        for (size_t i = 0; i < s->n_findings; i++) {
                free(s->findings[i].rule);
                free(s->findings[i].name);
                free(s->findings[i].message);
        }
        free(s->findings);
        *s = (acs_scan_result){};
}

void acs_report_done(acs_report *r)
{
        if (!r)
                return;
        free(r->profile);
        acs_scan_result_done(&r->scan);
        free(r->out.text);
        free(r->err.text);
        acs_changes_free(&r->files);
        if (r->have_apply)
                acs_apply_result_free(&r->apply);
        free(r->error);
        free(r->confinement.cgroup);
        acs_strv_free(r->scan_bypass);
        *r = (acs_report){};
}

/* ---- the human summary ------------------------------------------------ */

static void summary_status(strbuf *b, const acs_report *r)
{
        switch (r->status) {
        case ACS_STATUS_EXITED: sb_printf(b, "exited with status %d", r->exit_code); break;
        case ACS_STATUS_TIMEOUT: sb_printf(b, "timed out after %g s (killed)", r->limits.timeout_s); break;
        case ACS_STATUS_MEMORY:
                sb_printf(b, "killed: memory limit of %llu bytes reached",
                          (unsigned long long)r->limits.memory);
                break;
        case ACS_STATUS_CPU:
                sb_printf(b, "killed: CPU-time limit of %llu s reached", (unsigned long long)r->limits.cpu_s);
                break;
        case ACS_STATUS_SIGNALED: {
                const char *name = r->signal > 0 ? sigabbrev_np(r->signal) : NULL;
                sb_printf(b, "killed by signal %d%s%s", r->signal, name ? " SIG" : "", name ? name : "");
                break;
        }
        case ACS_STATUS_REJECTED: sb_printf(b, "refused by the security scan; nothing ran"); break;
        case ACS_STATUS_ERROR:
        default:
                sb_printf(b, "acs-launch error: ");
                sb_add_utf8(b, r->error ? r->error : "unknown", strlen(r->error ? r->error : "unknown"));
                break;
        }
        sb_printf(b, " (exit %d", r->exit_code);
        if (r->wall_ms > 0)
                sb_printf(b, ", %.1f ms", r->wall_ms);
        sb_printf(b, ", scan %s)\n", acs_verdict_to_string(r->scan.verdict));
}

static void summary_stream(strbuf *b, const char *name, const acs_stream_result *s)
{
        if (!s->text_len && !s->bytes)
                return;
        sb_printf(b, "--- %s (%llu bytes", name, (unsigned long long)s->bytes);
        if (s->truncated)
                sb_printf(b, ", clipped: %llu lines / %llu bytes omitted",
                          (unsigned long long)s->omitted_lines, (unsigned long long)s->omitted_bytes);
        sb_printf(b, ") ---\n");
        if (s->text) {
                sb_add_utf8(b, s->text, s->text_len);
                if (s->text_len && s->text[s->text_len - 1] != '\n')
                        sb_add(b, "\n", 1);
        }
}

static void summary_files(strbuf *b, const acs_changes *c)
{
        size_t n = c->n_added + c->n_modified + c->n_deleted;
        if (n == 0 && !c->truncated) {
                sb_printf(b, "files: no changes\n");
                return;
        }
        sb_printf(b, "files: %zu added, %zu modified, %zu deleted", c->n_added, c->n_modified, c->n_deleted);
        if (c->truncated)
                sb_printf(b, "; list truncated: %llu more changes not listed%s", (unsigned long long)c->omitted_entries,
                          c->omitted_dirs ? ", directories not examined" : "");
        sb_printf(b, "\n");
        const struct {
                const acs_change *v;
                size_t n;
                const char *tag;
        } lists[] = {{c->added, c->n_added, "A"},
                     {c->modified, c->n_modified, "M"},
                     {c->deleted, c->n_deleted, "D"}};
        size_t shown = 0;
        for (size_t l = 0; l < ELEMENTSOF(lists); l++)
                for (size_t i = 0; i < lists[l].n; i++) {
                        if (shown++ == 20) {
                                sb_printf(b, "  ... and %zu more\n", n - 20);
                                return;
                        }
                        const acs_change *x = &lists[l].v[i];
                        sb_printf(b, "  %s %s", lists[l].tag, "");
                        if (x->path)
                                sb_add_utf8(b, x->path, x->path_len ? x->path_len : strlen(x->path));
                        sb_add(b, "\n", 1);
                }
}

char *acs_report_summary(const acs_report *r)
{
        strbuf b = {};
        summary_status(&b, r);
        for (size_t i = 0; i < r->scan.n_findings; i++) {
                const acs_finding *f = &r->scan.findings[i];
                sb_printf(&b, "  line %d col %d: [%s] ", f->line, f->col, f->rule ? f->rule : "");
                const char *m = f->message ? f->message : (f->name ? f->name : "");
                sb_add_utf8(&b, m, strlen(m));
                sb_add(&b, "\n", 1);
        }
        summary_stream(&b, "stdout", &r->out);
        summary_stream(&b, "stderr", &r->err);
        if (r->have_files)
                summary_files(&b, &r->files);
        if (b.oom) {
                acs_strbuf_free(&b.s);
                return NULL;
        }
        return b.s.p ? b.s.p : strdup("");
}
