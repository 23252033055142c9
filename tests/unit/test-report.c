/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The run report: build reports of every status, check the JSON fields, and
 * (given a directory as argv[1]) write them there as sample-*.json so that
 * tests/integration/report-schema.sh validates them against the schema.
 */
#include <json-c/json.h>
#include <stdio.h>
#include <string.h>

#include "../tap.h"
#include "clip.h"
#include "report.h"

static char *xstrdup(const char *s)
{
        return s ? strdup(s) : NULL;
}

static void add_finding(acs_report *r, const char *rule, const char *name, int line, int col, const char *msg)
{
        acs_scan_result *s = &r->scan;
        s->findings = realloc(s->findings, (s->n_findings + 1) * sizeof *s->findings);
        s->findings[s->n_findings++] = (acs_finding){xstrdup(rule), xstrdup(name), line, col, xstrdup(msg)};
}

static void base(acs_report *r, const char *profile)
{
        *r = (acs_report){
                .profile = xstrdup(profile),
                .scan = {.verdict = ACS_VERDICT_PASS, .ms = 0.123456},
                .limits = {.timeout_s = 5,
                           .memory = 256 << 20,
                           .processes = 32,
                           .cpu_s = 5,
                           .file_size = 64 << 20,
                           .open_files = 64,
                           .memory_enforced = "cgroup2",
                           .processes_enforced = "rlimit"},
                .wall_ms = 21.4,
                .user_ms = 9,
                .sys_ms = 3.1,
                .max_rss_kb = 9120,
                .scan_ms = 0.1,
                .setup_ms = 1.9,
                .run_ms = 18,
                .diff_ms = 0.2,
        };
}

/* Fill out/err through a real shield, as the engine does. */
static void shield_output(acs_report *r, uint64_t tokens, const char *out, const char *err)
{
        acs_shield *s = acs_shield_new(tokens, true);
        acs_shield_feed(s, ACS_STDOUT, out, strlen(out));
        acs_shield_feed(s, ACS_STDERR, err, strlen(err));
        acs_shield_finish(s, &r->out, &r->err);
        acs_shield_free(s);
}

static struct json_object *get(struct json_object *o, const char *path)
{
        char buf[128];
        snprintf(buf, sizeof buf, "%s", path);
        for (char *save = NULL, *k = strtok_r(buf, ".", &save); k && o; k = strtok_r(NULL, ".", &save)) {
                struct json_object *v = NULL;
                if (json_object_get_type(o) == json_type_array)
                        v = json_object_array_get_idx(o, (size_t)atoi(k));
                else if (!json_object_object_get_ex(o, k, &v))
                        return NULL;
                o = v;
        }
        return o;
}

static bool has(struct json_object *o, const char *path)
{
        char buf[128];
        snprintf(buf, sizeof buf, "%s", path);
        char *dot = strrchr(buf, '.');
        struct json_object *parent = o;
        const char *key = buf;
        if (dot) {
                *dot = '\0';
                parent = get(o, buf);
                key = dot + 1;
        }
        return parent && json_object_object_get_ex(parent, key, NULL);
}

static const char *gets(struct json_object *o, const char *path)
{
        struct json_object *v = get(o, path);
        return v && json_object_is_type(v, json_type_string) ? json_object_get_string(v) : NULL;
}

static long long geti(struct json_object *o, const char *path)
{
        struct json_object *v = get(o, path);
        return v ? (long long)json_object_get_int64(v) : -999;
}

static void write_sample(const char *dir, const char *name, const acs_report *r)
{
        if (!dir)
                return;
        char path[4096];
        snprintf(path, sizeof path, "%s/sample-%s.json", dir, name);
        char *s = acs_report_to_string(r, true);
        FILE *f = fopen(path, "we");
        ok(f && s && fputs(s, f) >= 0 && fclose(f) == 0, "wrote %s", path);
        free(s);
}

/* Round trip through the serialised form: what a client would parse. */
static struct json_object *reparse(const acs_report *r)
{
        char *s = acs_report_to_string(r, false);
        struct json_object *j = s ? json_tokener_parse(s) : NULL;
        ok(j != NULL, "serialised report parses (%zu bytes)", s ? strlen(s) : 0);
        ok(s && !strchr(s, '\n'), "compact form is one line");
        free(s);
        return j;
}

static void test_exited(const char *dir)
{
        acs_report r;
        base(&r, "pure-math");
        r.status = ACS_STATUS_EXITED;
        shield_output(&r, 1000, "hello\n", "");
        struct json_object *j = reparse(&r);
        is_str(gets(j, "schema"), "acs-report/1", "schema");
        is_str(gets(j, "status"), "exited", "status");
        is_int(geti(j, "exit_code"), 0, "exit_code");
        ok(has(j, "signal") && get(j, "signal") == NULL, "signal is null");
        is_str(gets(j, "profile"), "pure-math", "profile");
        is_str(gets(j, "scan.verdict"), "pass", "scan.verdict");
        ok(json_object_is_type(get(j, "scan.findings"), json_type_array) &&
                   json_object_array_length(get(j, "scan.findings")) == 0,
           "no findings");
        is_str(gets(j, "stdout.text"), "hello\n", "stdout.text");
        is_int(geti(j, "stdout.bytes"), 6, "stdout.bytes");
        is_int(geti(j, "stdout.tokens"), 2, "stdout.tokens");
        ok(!json_object_get_boolean(get(j, "stdout.truncated")), "not truncated");
        is_int(geti(j, "stdout.omitted_bytes"), 0, "omitted_bytes");
        is_int(geti(j, "stdout.omitted_lines"), 0, "omitted_lines");
        is_int(geti(j, "stdout.omitted_tokens"), 0, "omitted_tokens");
        is_str(gets(j, "stderr.text"), "", "stderr.text empty");
        ok(has(j, "files") && get(j, "files") == NULL, "files null without a diff");
        is_int(geti(j, "limits.memory"), 256 << 20, "limits.memory");
        is_int(geti(j, "limits.processes"), 32, "limits.processes");
        is_int(geti(j, "limits.open_files"), 64, "limits.open_files");
        is_str(gets(j, "limits.enforced.memory"), "cgroup2", "enforced.memory");
        is_str(gets(j, "limits.enforced.processes"), "rlimit", "enforced.processes");
        is_int(geti(j, "usage.max_rss_kb"), 9120, "usage.max_rss_kb");
        ok(!has(j, "error"), "no error key");
        /* numbers: three decimals, no float noise */
        char *s = acs_report_to_string(&r, false);
        ok(strstr(s, "\"ms\":0.123") && strstr(s, "\"wall_ms\":21.4,") && strstr(s, "\"user_ms\":9,") &&
                   strstr(s, "\"timeout_s\":5,"),
           "times printed short");
        free(s);
        json_object_put(j);
        write_sample(dir, "exited", &r);

        char *sum = acs_report_summary(&r);
        ok(sum && strstr(sum, "exited with status 0") && strstr(sum, "hello\n") && strstr(sum, "scan pass"),
           "summary: status, verdict, output");
        free(sum);
        acs_report_done(&r);
        ok(r.profile == NULL && r.out.text == NULL, "report_done clears");
}

static void test_rejected(const char *dir)
{
        acs_report r;
        base(&r, "default");
        r.status = ACS_STATUS_REJECTED;
        r.exit_code = 126;
        r.scan.verdict = ACS_VERDICT_REJECT;
        add_finding(&r, "forbidden-import", "os", 2, 0, "import of 'os' is not allowed by profile default");
        add_finding(&r, "denied-builtin", "ev\xffl", 3, 4, "bad \xc3 bytes \xe2\x82");
        shield_output(&r, 1000, "", "");
        struct json_object *j = reparse(&r);
        is_str(gets(j, "status"), "rejected", "rejected status");
        is_int(geti(j, "exit_code"), 126, "exit 126");
        is_str(gets(j, "scan.verdict"), "reject", "verdict reject");
        is_str(gets(j, "scan.findings.0.rule"), "forbidden-import", "finding rule");
        is_str(gets(j, "scan.findings.0.name"), "os", "finding name");
        is_int(geti(j, "scan.findings.0.line"), 2, "finding line");
        is_int(geti(j, "scan.findings.0.col"), 0, "finding col");
        is_str(gets(j, "scan.findings.1.name"), "ev\xef\xbf\xbdl", "invalid UTF-8 in a finding repaired");
        is_str(gets(j, "scan.findings.1.message"), "bad \xef\xbf\xbd bytes \xef\xbf\xbd",
               "invalid UTF-8 in a message repaired");
        json_object_put(j);
        write_sample(dir, "rejected", &r);
        char *sum = acs_report_summary(&r);
        ok(sum && strstr(sum, "refused by the security scan") &&
                   strstr(sum, "line 2 col 0: [forbidden-import] import of 'os'"),
           "summary lists findings");
        free(sum);
        acs_report_done(&r);
}

static void test_killed(const char *dir)
{
        static const struct {
                acs_status st;
                int exit_code, sig;
                const char *name, *summary;
        } t[] = {
                {ACS_STATUS_TIMEOUT, 124, 9, "timeout", "timed out after 5 s"},
                {ACS_STATUS_SIGNALED, 139, 11, "signaled", "killed by signal 11 SIGSEGV"},
                {ACS_STATUS_MEMORY, 137, 9, "memory", "memory limit"},
        };
        for (size_t i = 0; i < ELEMENTSOF(t); i++) {
                acs_report r;
                base(&r, "default");
                r.status = t[i].st;
                r.exit_code = t[i].exit_code;
                r.signal = t[i].sig;
                shield_output(&r, 10, "0123456789abcdef\nline 2\nline 3\nline 4\nline 5\n",
                              "Traceback (most recent call last):\nMemoryError\n");
                struct json_object *j = reparse(&r);
                is_str(gets(j, "status"), t[i].name, t[i].name);
                is_int(geti(j, "signal"), t[i].sig, "signal number");
                is_int(geti(j, "exit_code"), t[i].exit_code, "exit code");
                ok(json_object_get_boolean(get(j, "stdout.truncated")), "clipped stdout");
                ok(strstr(gets(j, "stderr.text"), "MemoryError\n") != NULL, "stderr end kept");
                json_object_put(j);
                write_sample(dir, t[i].name, &r);
                char *sum = acs_report_summary(&r);
                ok(sum && strstr(sum, t[i].summary) && strstr(sum, "clipped"), "summary says %s",
                   t[i].summary);
                free(sum);
                acs_report_done(&r);
        }
}

static void test_error(const char *dir)
{
        acs_report r;
        base(&r, NULL);
        r.status = ACS_STATUS_ERROR;
        r.exit_code = 125;
        r.scan.verdict = ACS_VERDICT_SKIPPED;
        r.error = xstrdup("mount: /nonexistent\xff: No such file or directory");
        struct json_object *j = reparse(&r);
        is_str(gets(j, "status"), "error", "error status");
        ok(has(j, "profile") && get(j, "profile") == NULL, "profile null");
        is_str(gets(j, "error"), "mount: /nonexistent\xef\xbf\xbd: No such file or directory",
               "error message, valid UTF-8");
        is_str(gets(j, "stdout.text"), "", "empty stdout object still present");
        is_str(gets(j, "limits.enforced.memory"), "cgroup2", "limits present");
        json_object_put(j);
        write_sample(dir, "error", &r);
        r.limits.memory_enforced = r.limits.processes_enforced = NULL;
        j = acs_report_to_json(&r);
        is_str(gets(j, "limits.enforced.memory"), "none", "unknown enforcement is none");
        json_object_put(j);
        char *sum = acs_report_summary(&r);
        ok(sum && strstr(sum, "acs-launch error: mount:"), "summary shows the error");
        free(sum);
        acs_report_done(&r);
}

static void test_files(const char *dir)
{
        acs_report r;
        base(&r, "default");
        r.status = ACS_STATUS_EXITED;
        r.exit_code = 3;
        r.scan.verdict = ACS_VERDICT_WARN;
        shield_output(&r, 1000, "done\n", "");
        r.have_files = true;
        r.files.added = calloc(1, sizeof(acs_change));
        r.files.added[0].path = xstrdup("result.txt");
        r.files.added[0].path_len = 10;
        r.files.added[0].type = ACS_FT_FILE;
        r.files.added[0].size = 20;
        r.files.n_added = 1;
        struct json_object *j = reparse(&r);
        is_int(geti(j, "exit_code"), 3, "exit code 3");
        is_str(gets(j, "scan.verdict"), "warn", "verdict warn");
        ok(json_object_is_type(get(j, "files"), json_type_object) &&
                   json_object_is_type(get(j, "files.added"), json_type_array) &&
                   json_object_is_type(get(j, "files.modified"), json_type_array) &&
                   json_object_is_type(get(j, "files.deleted"), json_type_array),
           "files object with added/modified/deleted");
        json_object_put(j);
        write_sample(dir, "files", &r);
        char *sum = acs_report_summary(&r);
        ok(sum && strstr(sum, "files: 1 added, 0 modified, 0 deleted") && strstr(sum, "A result.txt"),
           "summary lists changed files");
        free(sum);
        acs_report_done(&r);
}

static void test_clipped(const char *dir)
{
        acs_report r;
        base(&r, "default");
        r.status = ACS_STATUS_EXITED;
        r.exit_code = 1;
        char *big = malloc(7000000);
        size_t o = 0;
        for (int i = 0; i < 1000000; i++)
                o += (size_t)sprintf(big + o, "%d\n", i);
        shield_output(&r, 1000, big, "\x1b[31mTraceback\x1b[0m\n\xff\xfe\nValueError: x\n");
        free(big);
        struct json_object *j = reparse(&r);
        ok(json_object_get_boolean(get(j, "stdout.truncated")), "clipped");
        is_int(geti(j, "stdout.bytes"), 6888890, "bytes of a million numbers");
        const char *t = gets(j, "stdout.text");
        ok(t && strncmp(t, "0\n1\n", 4) == 0 && strstr(t, "\n999999\n"), "first and last lines");
        is_str(gets(j, "stderr.text"), "Traceback\n\xef\xbf\xbd\xef\xbf\xbd\nValueError: x\n",
               "stderr cleaned");
        json_object_put(j);
        write_sample(dir, "clipped", &r);
        acs_report_done(&r);
}

int main(int argc, char **argv)
{
        const char *dir = argc > 1 ? argv[1] : NULL;
        is_str(acs_status_to_string(ACS_STATUS_MEMORY), "memory", "status names");
        is_str(acs_status_to_string((acs_status)99), "error", "unknown status");
        test_exited(dir);
        test_rejected(dir);
        test_killed(dir);
        test_error(dir);
        test_files(dir);
        test_clipped(dir);
        return tap_done();
}
