/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The text summary of a run that an MCP client shows the model (pure).
 *
 * The model reads our lines (status, findings, files, hint) and the
 * program's output in one text, so the program must not be able to write a
 * line that passes for ours ("exited with status 0 (scan pass)", "files: no
 * changes"). Each stream therefore sits in a fenced block whose fence is
 * longer than any run of backticks in it — the program cannot close it early
 * — under a header line of ours that gives its byte count; and everything
 * else the program chose (file names, a finding's text) is escaped onto one
 * line. The structuredContent, not this text, is the report.
 */
#include <stdio.h>
#include <string.h>

#include "diff.h"
#include "mcp-tools.h"

/* s[0..n) as valid UTF-8 on one line: bad bytes as \xNN (acs_escape_bytes), controls as \n, \t, \xNN. */
static void put_inline(FILE *f, const char *s, size_t n)
{
        _cleanup_free_ char *u = acs_escape_bytes(s, n, &(bool){ false });

        if (!u) {
                fputs("(?)", f);
                return;
        }
        for (const unsigned char *p = (const unsigned char *)u; *p; p++) {
                if (*p == '\n')
                        fputs("\\n", f);
                else if (*p == '\t')
                        fputs("\\t", f);
                else if (*p < 0x20 || *p == 0x7f)
                        fprintf(f, "\\x%02x", *p);
                else
                        fputc(*p, f);
        }
}

static void put_str(FILE *f, const char *s)
{
        put_inline(f, s ? s : "", s ? strlen(s) : 0);
}

static void put_status(FILE *f, const acs_report *r)
{
        switch (r->status) {
        case ACS_STATUS_EXITED: fprintf(f, "exited with status %d", r->exit_code); break;
        case ACS_STATUS_TIMEOUT: fprintf(f, "timed out after %g s (killed)", r->limits.timeout_s); break;
        case ACS_STATUS_MEMORY:
                fprintf(f, "killed: memory limit of %llu bytes reached", (unsigned long long)r->limits.memory);
                break;
        case ACS_STATUS_CPU:
                fprintf(f, "killed: CPU-time limit of %llu s reached", (unsigned long long)r->limits.cpu_s);
                break;
        case ACS_STATUS_SIGNALED: {
                const char *name = r->signal > 0 ? sigabbrev_np(r->signal) : NULL;
                fprintf(f, "killed by signal %d%s%s", r->signal, name ? " SIG" : "", name ? name : "");
                break;
        }
        case ACS_STATUS_REJECTED: fputs("refused by the security scan; nothing ran", f); break;
        case ACS_STATUS_ERROR:
        default:
                fputs("acs-launch error: ", f);
                put_str(f, r->error ? r->error : "unknown");
                break;
        }
        fprintf(f, " (exit %d", r->exit_code);
        if (r->wall_ms > 0)
                fprintf(f, ", %.1f ms", r->wall_ms);
        fprintf(f, ", scan %s)\n", acs_verdict_to_string(r->scan.verdict));
        for (size_t i = 0; i < r->scan.n_findings; i++) {
                const acs_finding *x = &r->scan.findings[i];

                fprintf(f, "  line %d col %d: [", x->line, x->col);
                put_str(f, x->rule);
                fputs("] ", f);
                put_str(f, x->message ? x->message : x->name);
                fputc('\n', f);
        }
}

/* Longest run of backticks in s[0..n). */
static size_t longest_backticks(const char *s, size_t n)
{
        size_t best = 0, run = 0;

        for (size_t i = 0; i < n; i++) {
                run = s[i] == '`' ? run + 1 : 0;
                if (run > best)
                        best = run;
        }
        return best;
}

static void put_fence(FILE *f, size_t len)
{
        for (size_t i = 0; i < len; i++)
                fputc('`', f);
}

static void put_stream(FILE *f, const char *name, const acs_stream_result *s)
{
        _cleanup_free_ char *text = NULL;
        size_t len, fence;

        if (!s->text_len && !s->bytes)
                return;
        /* The report's text is valid UTF-8 already; repair it anyway: this is a JSON string. */
        text = acs_escape_bytes(s->text ? s->text : "", s->text ? s->text_len : 0, &(bool){ false });
        len = text ? strlen(text) : 0;
        fence = longest_backticks(text ? text : "", len) + 1;
        if (fence < 3)
                fence = 3;
        fprintf(f, "%s: %llu bytes", name, (unsigned long long)s->bytes);
        if (s->truncated)
                fprintf(f, ", clipped: %llu lines / %llu bytes omitted", (unsigned long long)s->omitted_lines,
                        (unsigned long long)s->omitted_bytes);
        fprintf(f, "; the program's %s is between the two lines of %zu backticks:\n", name, fence);
        put_fence(f, fence);
        fprintf(f, "%s\n", name);
        if (text && len) {
                fwrite(text, 1, len, f);
                if (text[len - 1] != '\n')
                        fputc('\n', f);
        }
        put_fence(f, fence);
        fputc('\n', f);
}

/* Where the patch is, or how to get it: the model reads this line, not the JSON. */
static void put_patch(FILE *f, const acs_changes *c)
{
        if (c->patch && c->patch_truncated)
                fprintf(f, "patch: in files.patch, cut to its first files (%zu bytes; at most %u KiB are returned)\n",
                        c->patch_len, ACS_MCP_PATCH_CAP >> 10);
        else if (c->patch)
                fprintf(f, "patch: in files.patch (%zu bytes)\n", c->patch_len);
        else if (c->patch_omitted)
                fputs("patch: omitted (too big, or the file lists are truncated)\n", f);
        else
                fputs("patch: not included; call again with \"patch\": true to get it\n", f);
}

static void put_files(FILE *f, const acs_changes *c)
{
        const struct {
                const acs_change *v;
                size_t n;
                const char *tag;
        } lists[] = { { c->added, c->n_added, "A" }, { c->modified, c->n_modified, "M" },
                      { c->deleted, c->n_deleted, "D" } };
        size_t n = c->n_added + c->n_modified + c->n_deleted, shown = 0;

        if (n == 0 && !c->truncated) {
                fputs("files: no changes\n", f);
                return;
        }
        fprintf(f, "files: %zu added, %zu modified, %zu deleted%s\n", c->n_added, c->n_modified, c->n_deleted,
                c->truncated ? " (and more not listed)" : "");
        for (size_t l = 0; l < ELEMENTSOF(lists); l++)
                for (size_t i = 0; i < lists[l].n; i++) {
                        const acs_change *x = &lists[l].v[i];

                        if (shown++ == 20) {
                                fprintf(f, "  ... and %zu more\n", n - 20);
                                goto done;
                        }
                        fprintf(f, "  %s ", lists[l].tag);
                        if (x->path)
                                put_inline(f, x->path, x->path_len ? x->path_len : strlen(x->path));
                        fputc('\n', f);
                }
done:
        put_patch(f, c);
}

char *acs_mcp_run_text(const acs_report *rep, const char *hint)
{
        char *text = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&text, &len);

        if (!f)
                return NULL;
        put_status(f, rep);
        put_stream(f, "stdout", &rep->out);
        put_stream(f, "stderr", &rep->err);
        if (rep->have_files)
                put_files(f, &rep->files);
        if (hint)
                fputs(hint, f);
        if (fclose(f) != 0) {
                free(text);
                return NULL;
        }
        return text;
}
