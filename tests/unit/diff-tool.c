/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Test driver for the diff module on real overlay layers (no sandbox needed):
 *   diff-tool collect UPPER LOWER [opts]   print the changes as JSON on stdout
 *   diff-tool short UPPER LOWER [opts]     print the git-status-like summary
 *   diff-tool apply UPPER LOWER [opts]     collect, then apply into LOWER; JSON result
 *   diff-tool keep UPPER LOWER DIR [opts]  collect, then keep into DIR
 *   diff-tool keep-apply DIR WORKSPACE [--json]   acs_cmd_apply; exit status as the CLI's
 *   diff-tool bench UPPER LOWER N [--patch]  time N in-process collects: "median min max" ms
 * opts: --patch FILE   write the patch (collect)
 *       --protect GLOB (repeatable)
 *       --run-start SEC   conflict check against ctime (apply, keep)
 *       --dry-run      (apply)
 *       --max-entries N
 *       --name-budget BYTES   directory names the walk may hold (default 4 MiB)
 *       --into DIR     (apply) apply into DIR instead of LOWER: the changes
 *                      are collected against LOWER, DIR may have changed since
 * LOWER may be "-" for no lower layer.
 */
#include <fcntl.h>
#include <json-c/json.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "diff.h"

typedef struct tool_opts {
        const char *patch;
        char **protect;
        struct timespec run_start;
        bool dry_run;
        uint64_t max_entries;
        size_t name_budget;
        const char *into;
} tool_opts;

static int parse_opts(int argc, char **argv, int i, tool_opts *t)
{
        for (; i < argc; i++) {
                if (strcmp(argv[i], "--patch") == 0 && i + 1 < argc)
                        t->patch = argv[++i];
                else if (strcmp(argv[i], "--protect") == 0 && i + 1 < argc)
                        acs_strv_push(&t->protect, argv[++i]);
                else if (strcmp(argv[i], "--run-start") == 0 && i + 1 < argc)
                        t->run_start.tv_sec = strtoll(argv[++i], NULL, 10);
                else if (strcmp(argv[i], "--into") == 0 && i + 1 < argc)
                        t->into = argv[++i];
                else if (strcmp(argv[i], "--dry-run") == 0)
                        t->dry_run = true;
                else if (strcmp(argv[i], "--max-entries") == 0 && i + 1 < argc)
                        t->max_entries = strtoull(argv[++i], NULL, 10);
                else if (strcmp(argv[i], "--name-budget") == 0 && i + 1 < argc)
                        t->name_budget = strtoull(argv[++i], NULL, 10);
                else {
                        fprintf(stderr, "diff-tool: bad argument %s\n", argv[i]);
                        return -EINVAL;
                }
        }
        return 0;
}

static int open_dir(const char *p)
{
        if (strcmp(p, "-") == 0)
                return -1;
        return open(p, O_PATH | O_DIRECTORY | O_CLOEXEC);
}

static void print_json(json_object *j)
{
        puts(json_object_to_json_string_ext(j, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE));
        json_object_put(j);
}

static int write_patch(const char *dest, const acs_changes *c)
{
        FILE *f = strcmp(dest, "-") == 0 ? stdout : fopen(dest, "we");

        if (!f)
                return -errno;
        if (c->patch)
                fwrite(c->patch, 1, c->patch_len, f);
        return f == stdout ? fflush(f) : fclose(f);
}

static int cmp_double(const void *a, const void *b)
{
        double x = *(const double *)a, y = *(const double *)b;

        return x < y ? -1 : x > y;
}

/* In-process timing of acs_diff_collect (the first call also faults in the hashing code). */
static int bench(int argc, char **argv)
{
        int upper = open_dir(argv[2]), lower = open_dir(argv[3]);
        int n = argc > 4 ? atoi(argv[4]) : 100;
        acs_diff_opts o = { .want_patch = argc > 5 && strcmp(argv[5], "--patch") == 0 };
        double *ms = calloc((size_t)(n > 0 ? n : 1), sizeof *ms);
        size_t changes = 0;

        if (upper < 0 || n <= 0 || !ms)
                return 2;
        if (getenv("DIFF_TOOL_PRELOAD")) {
                struct timespec a, b;
                acs_error err = {};

                clock_gettime(CLOCK_MONOTONIC, &a);
                acs_diff_preload(o.want_patch, &err);
                clock_gettime(CLOCK_MONOTONIC, &b);
                printf("preload %.3f ms; ", (double)(b.tv_sec - a.tv_sec) * 1e3 + (double)(b.tv_nsec - a.tv_nsec) / 1e6);
        }
        for (int i = 0; i < n; i++) {
                struct timespec a, b;
                acs_changes c = {};
                acs_error err = {};

                clock_gettime(CLOCK_MONOTONIC, &a);
                if (acs_diff_collect(upper, lower, &o, &c, &err) < 0) {
                        fprintf(stderr, "diff-tool: %s\n", err.msg);
                        return 1;
                }
                clock_gettime(CLOCK_MONOTONIC, &b);
                ms[i] = (double)(b.tv_sec - a.tv_sec) * 1e3 + (double)(b.tv_nsec - a.tv_nsec) / 1e6;
                changes = acs_changes_count(&c);
                acs_changes_free(&c);
        }
        printf("first %.3f ms; ", ms[0]);
        qsort(ms, (size_t)n, sizeof *ms, cmp_double);
        printf("median %.3f min %.3f max %.3f ms over %d runs, %zu changes\n", ms[n / 2], ms[0],
               ms[n - 1], n, changes);
        free(ms);
        return 0;
}

int main(int argc, char **argv)
{
        tool_opts t = {};
        acs_diff_opts o = {};
        acs_changes c = {};
        acs_error err = {};
        int upper, lower, r, argi = 4;
        const char *cmd;

        if (argc < 4) {
                fprintf(stderr, "usage: diff-tool collect|short|apply|keep|keep-apply ...\n");
                return 2;
        }
        cmd = argv[1];
        if (strcmp(cmd, "bench") == 0)
                return bench(argc, argv);
        if (strcmp(cmd, "keep-apply") == 0) {
                char *args[] = { argv[2], NULL };
                acs_options ao = { .args = args, .workspace = argv[3] };

                ao.json = argc > 4 && strcmp(argv[4], "--json") == 0;
                ao.umask = umask(022);
                umask(ao.umask);
                return acs_cmd_apply(&ao);
        }
        if (strcmp(cmd, "keep") == 0)
                argi = 5;
        if (argc < argi || parse_opts(argc, argv, argi, &t) < 0)
                return 2;
        upper = open_dir(argv[2]);
        lower = open_dir(argv[3]);
        if (upper < 0) {
                perror(argv[2]);
                return 2;
        }
        o.protect = t.protect;
        o.want_patch = t.patch || strcmp(cmd, "keep") == 0;
        o.max_entries = t.max_entries;
        o.name_budget = t.name_budget;
        r = acs_diff_collect(upper, lower, &o, &c, &err);
        if (r < 0) {
                fprintf(stderr, "diff-tool: %s\n", err.msg);
                return 1;
        }
        c.run_start = t.run_start;
        if (strcmp(cmd, "collect") == 0) {
                if (t.patch && write_patch(t.patch, &c) < 0)
                        return 1;
                print_json(acs_changes_to_json(&c));
        } else if (strcmp(cmd, "short") == 0) {
                acs_changes_print_short(stdout, &c);
        } else if (strcmp(cmd, "apply") == 0) {
                acs_apply_opts ao = { .dry_run = t.dry_run, .protect = t.protect };
                acs_apply_result res = {};
                int into = t.into ? open_dir(t.into) : lower;

                ao.umask = umask(022);
                umask(ao.umask);
                acs_changes_mark_run_conflicts(&c, into);
                r = acs_apply_changes(upper, into, &c, &ao, &res, &err);
                if (r < 0) {
                        fprintf(stderr, "diff-tool: %s\n", err.msg);
                        return 1;
                }
                print_json(acs_apply_result_to_json(&res));
                acs_apply_result_print(stderr, &res);
                acs_apply_result_free(&res);
        } else if (strcmp(cmd, "keep") == 0) {
                r = acs_keep_layer(upper, &c, argv[4], &err);
                if (r < 0) {
                        fprintf(stderr, "diff-tool: %s\n", err.msg);
                        return 1;
                }
        } else {
                fprintf(stderr, "diff-tool: unknown command %s\n", cmd);
                return 2;
        }
        acs_changes_free(&c);
        acs_strv_free(t.protect);
        return 0;
}
