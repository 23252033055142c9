/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * argv -> acs_options. Pure: no I/O beyond the usage text, no environment.
 * Options follow the subcommand and stop at "--" or at the first non-option
 * word (the script or command), like python(1) and bwrap(1).
 */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "profile.h"

enum opt_id {
        OPT_PROFILE, OPT_WORKSPACE, OPT_TIMEOUT, OPT_MEMORY, OPT_MAX_TOKENS, OPT_NET,
        OPT_RO_BIND, OPT_BIND, OPT_TMPFS, OPT_SETENV, OPT_UNSETENV, OPT_CHDIR, OPT_APPLY,
        OPT_PATCH, OPT_KEEP, OPT_JSON, OPT_REPORT, OPT_QUIET, OPT_VERBOSE, OPT_VERSION,
        OPT_HELP, OPT_CODE, OPT_MAX_CONCURRENCY, OPT_CPU,
        OPT_PROCESSES, OPT_OPEN_FILES, OPT_FILE_SIZE, OPT_VENV, OPT_SHOW,
};

typedef struct opt_def {
        const char *lng;
        char shrt;
        unsigned nargs;
        enum opt_id id;
} opt_def;

static const opt_def opts_table[] = {
        { "profile", 'p', 1, OPT_PROFILE },
        { "workspace", 'w', 1, OPT_WORKSPACE },
        { "timeout", 0, 1, OPT_TIMEOUT },
        { "memory", 0, 1, OPT_MEMORY },
        { "cpu", 0, 1, OPT_CPU },
        { "max-tokens", 0, 1, OPT_MAX_TOKENS },
        { "net", 0, 1, OPT_NET },
        { "ro-bind", 0, 2, OPT_RO_BIND },
        { "bind", 0, 2, OPT_BIND },
        { "tmpfs", 0, 1, OPT_TMPFS },
        { "setenv", 0, 2, OPT_SETENV },
        { "unsetenv", 0, 1, OPT_UNSETENV },
        { "chdir", 0, 1, OPT_CHDIR },
        { "apply", 0, 0, OPT_APPLY },
        { "patch", 0, 1, OPT_PATCH },
        { "keep", 0, 1, OPT_KEEP },
        { "json", 0, 0, OPT_JSON },
        { "report", 0, 1, OPT_REPORT },
        { "quiet", 'q', 0, OPT_QUIET },
        { "verbose", 'v', 0, OPT_VERBOSE },
        { "version", 0, 0, OPT_VERSION },
        { "help", 'h', 0, OPT_HELP },
        { NULL, 'c', 1, OPT_CODE },
        { "max-concurrency", 0, 1, OPT_MAX_CONCURRENCY },
        { "processes", 0, 1, OPT_PROCESSES },
        { "open-files", 0, 1, OPT_OPEN_FILES },
        { "file-size", 0, 1, OPT_FILE_SIZE },
        { "venv", 0, 1, OPT_VENV },
        { "show", 0, 1, OPT_SHOW },
};

static const struct {
        const char *word;
        acs_command cmd;
} subcommands[] = {
        { "run", ACS_CMD_RUN },         { "exec", ACS_CMD_EXEC },
        { "check", ACS_CMD_CHECK },     { "mcp", ACS_CMD_MCP },
        { "profiles", ACS_CMD_PROFILES }, { "bench", ACS_CMD_BENCH },
        { "doctor", ACS_CMD_DOCTOR },   { "apply", ACS_CMD_APPLY },
        { "help", ACS_CMD_HELP },       { "version", ACS_CMD_VERSION },
};

bool acs_cli_is_subcommand(const char *word)
{
        for (size_t k = 0; k < ELEMENTSOF(subcommands); k++)
                if (strcmp(word, subcommands[k].word) == 0)
                        return true;
        return false;
}

void acs_options_done(acs_options *o)
{
        free(o->profile);
        free(o->workspace);
        for (size_t i = 0; i < o->n_mounts; i++) {
                free(o->mounts[i].src);
                free(o->mounts[i].dest);
        }
        free(o->mounts);
        acs_strv_free(o->setenv);
        acs_strv_free(o->unsetenv);
        free(o->chdir);
        free(o->patch);
        free(o->keep);
        free(o->report);
        free(o->code);
        free(o->venv);
        free(o->show);
        acs_strv_free(o->args);
        *o = (acs_options){ 0 };
}

static const opt_def *find_opt(const char *arg, const char **ret_inline)
{
        *ret_inline = NULL;
        if (arg[0] == '-' && arg[1] == '-') {
                const char *name = arg + 2;
                size_t len = strcspn(name, "=");
                for (size_t i = 0; i < ELEMENTSOF(opts_table); i++)
                        if (opts_table[i].lng && strlen(opts_table[i].lng) == len &&
                            strncmp(opts_table[i].lng, name, len) == 0) {
                                if (name[len] == '=')
                                        *ret_inline = name + len + 1;
                                return &opts_table[i];
                        }
                return NULL;
        }
        for (size_t i = 0; i < ELEMENTSOF(opts_table); i++)
                if (opts_table[i].shrt && arg[1] == opts_table[i].shrt) {
                        if (arg[2])
                                *ret_inline = arg + 2;
                        return &opts_table[i];
                }
        return NULL;
}

static bool allowed_for(acs_command cmd, enum opt_id id)
{
        switch (id) {
        case OPT_VERSION: case OPT_HELP: case OPT_VERBOSE: case OPT_QUIET:
                return true;
        case OPT_PROFILE:
                return cmd != ACS_CMD_PROFILES && cmd != ACS_CMD_DOCTOR;
        case OPT_JSON:
                return cmd == ACS_CMD_RUN || cmd == ACS_CMD_EXEC || cmd == ACS_CMD_CHECK ||
                       cmd == ACS_CMD_APPLY || cmd == ACS_CMD_BENCH || cmd == ACS_CMD_PROFILES;
        case OPT_SHOW:
                return cmd == ACS_CMD_PROFILES;
        case OPT_WORKSPACE:
                return cmd == ACS_CMD_RUN || cmd == ACS_CMD_EXEC || cmd == ACS_CMD_MCP ||
                       cmd == ACS_CMD_APPLY;
        case OPT_PATCH:
                return cmd == ACS_CMD_RUN || cmd == ACS_CMD_EXEC || cmd == ACS_CMD_APPLY;
        case OPT_CODE:
        case OPT_VENV:
                return cmd == ACS_CMD_RUN;
        case OPT_MAX_CONCURRENCY:
                return cmd == ACS_CMD_MCP;
        case OPT_TIMEOUT: case OPT_MEMORY: case OPT_MAX_TOKENS: case OPT_NET:
                return cmd == ACS_CMD_RUN || cmd == ACS_CMD_EXEC || cmd == ACS_CMD_MCP;
        default:
                return cmd == ACS_CMD_RUN || cmd == ACS_CMD_EXEC;
        }
}

static int dup_to(char **dst, const char *v)
{
        char *c = strdup(v);
        if (!c)
                return -ENOMEM;
        free(*dst);
        *dst = c;
        return 0;
}

static int add_mount(acs_options *o, acs_mount_kind kind, const char *src, const char *dest)
{
        acs_mount_opt *m = realloc(o->mounts, (o->n_mounts + 1) * sizeof *m);
        if (!m)
                return -ENOMEM;
        o->mounts = m;
        m[o->n_mounts] = (acs_mount_opt){ .kind = kind };
        if ((src && !(m[o->n_mounts].src = strdup(src))) ||
            !(m[o->n_mounts].dest = strdup(dest))) {
                free(m[o->n_mounts].src);
                return -ENOMEM;
        }
        o->n_mounts++;
        return 0;
}

static int apply_opt(acs_options *o, const opt_def *d, const char *spelled, const char *a,
                     const char *b, acs_error *err)
{
        int r = 0;
        switch (d->id) {
        case OPT_PROFILE: return dup_to(&o->profile, a);
        case OPT_WORKSPACE: return dup_to(&o->workspace, a);
        case OPT_CHDIR: return dup_to(&o->chdir, a);
        case OPT_PATCH: return dup_to(&o->patch, a);
        case OPT_KEEP: return dup_to(&o->keep, a);
        case OPT_REPORT: return dup_to(&o->report, a);
        case OPT_CODE: return dup_to(&o->code, a);
        case OPT_APPLY: o->apply = true; return 0;
        case OPT_JSON: o->json = true; return 0;
        case OPT_QUIET: o->quiet = true; return 0;
        case OPT_VERBOSE: o->verbose++; return 0;
        case OPT_VERSION: o->command = ACS_CMD_VERSION; return 0;
        case OPT_HELP: o->command = ACS_CMD_HELP; return 0;
        case OPT_TIMEOUT:
                if (acs_parse_seconds(a, &o->timeout) < 0)
                        goto bad;
                o->has_timeout = true;
                return 0;
        case OPT_MEMORY:
                if (acs_parse_size(a, &o->memory) < 0)
                        goto bad;
                o->has_memory = true;
                return 0;
        case OPT_CPU: {
                /* whole seconds, fractions round up (as the profile key) */
                double secs;
                if (acs_parse_seconds(a, &secs) < 0 || secs > 1e9)
                        goto bad;
                o->cpu = (uint64_t)secs + ((double)(uint64_t)secs < secs);
                o->has_cpu = true;
                return 0;
        }
        case OPT_PROCESSES: /* the ranges of [limits] processes and open_files */
                if (acs_parse_uint(a, &o->processes) < 0 || o->processes < 1 || o->processes > (1 << 22))
                        goto bad;
                o->has_processes = true;
                return 0;
        case OPT_OPEN_FILES:
                if (acs_parse_uint(a, &o->open_files) < 0 || o->open_files < 8 || o->open_files > (1 << 20))
                        goto bad;
                o->has_open_files = true;
                return 0;
        case OPT_FILE_SIZE: /* 0: no limit, as the profile key */
                if (acs_parse_size(a, &o->file_size) < 0)
                        goto bad;
                o->has_file_size = true;
                return 0;
        case OPT_SHOW: return dup_to(&o->show, a);
        case OPT_VENV:
                if (a[0] != '/')
                        return acs_error_set(err, -EINVAL, "usage", "%s: expected an absolute path, got '%s'",
                                             spelled, a);
                return dup_to(&o->venv, a);
        case OPT_MAX_TOKENS:
                if (acs_parse_uint(a, &o->max_tokens) < 0)
                        goto bad;
                o->has_max_tokens = true;
                return 0;
        case OPT_MAX_CONCURRENCY: {
                uint64_t v;
                if (acs_parse_uint(a, &v) < 0 || v == 0 || v > 1024)
                        goto bad;
                o->max_concurrency = (unsigned)v;
                return 0;
        }
        case OPT_NET:
                if (strcmp(a, "none") == 0)
                        o->net = ACS_NET_NONE;
                else if (strcmp(a, "loopback") == 0)
                        o->net = ACS_NET_LOOPBACK;
                else
                        return acs_error_set(err, -EINVAL, "usage",
                                             "%s: expected 'none' or 'loopback', got '%s'", spelled, a);
                o->has_net = true;
                return 0;
        case OPT_RO_BIND: return add_mount(o, ACS_MOUNT_RO_BIND, a, b);
        case OPT_BIND: return add_mount(o, ACS_MOUNT_BIND, a, b);
        case OPT_TMPFS: return add_mount(o, ACS_MOUNT_TMPFS, NULL, a);
        case OPT_SETENV: {
                if (!*a || strchr(a, '='))
                        return acs_error_set(err, -EINVAL, "usage", "%s: bad variable name '%s'", spelled, a);
                _cleanup_free_ char *kv = NULL;
                if (asprintf(&kv, "%s=%s", a, b) < 0)
                        return -ENOMEM;
                return acs_strv_push(&o->setenv, kv);
        }
        case OPT_UNSETENV: return acs_strv_push(&o->unsetenv, a);
        }
        return r;
bad:
        return acs_error_set(err, -EINVAL, "usage", "%s: invalid value '%s'", spelled, a);
}

int acs_cli_parse(int argc, char *const *argv, acs_options *ret, acs_error *err)
{
        acs_options o = { .command = ACS_CMD_RUN };
        int i = 1, r;

        if (i < argc)
                for (size_t k = 0; k < ELEMENTSOF(subcommands); k++)
                        if (strcmp(argv[i], subcommands[k].word) == 0) {
                                o.command = subcommands[k].cmd;
                                i++;
                                break;
                        }
        acs_command sub = o.command;

        for (; i < argc; i++) {
                const char *arg = argv[i];
                if (strcmp(arg, "--") == 0) {
                        i++;
                        break;
                }
                if (arg[0] != '-' || arg[1] == '\0') {
                        /* run and exec: the first operand starts the program's own
                         * argv; other subcommands take options anywhere */
                        if (sub == ACS_CMD_RUN || sub == ACS_CMD_EXEC)
                                break;
                        if ((r = acs_strv_push(&o.args, arg)) < 0)
                                goto fail;
                        continue;
                }
                const char *inl;
                const opt_def *d = find_opt(arg, &inl);
                if (!d) {
                        r = acs_error_set(err, -EINVAL, "usage", "unknown option '%s' (see acs-launch --help)", arg);
                        goto fail;
                }
                if (!allowed_for(sub, d->id)) {
                        r = acs_error_set(err, -EINVAL, "usage", "option '%s' does not apply here", arg);
                        goto fail;
                }
                if (d->nargs == 0 && inl && arg[1] == '-') {
                        r = acs_error_set(err, -EINVAL, "usage", "option '%s' takes no value", arg);
                        goto fail;
                }
                if (d->nargs == 0 && inl) { /* -vv */
                        for (const char *s = arg + 1; *s; s++)
                                if (*s != d->shrt) {
                                        r = acs_error_set(err, -EINVAL, "usage", "unknown option '%s'", arg);
                                        goto fail;
                                }
                        o.verbose += (int)strlen(arg + 1) - 1;
                }
                const char *a = NULL, *b = NULL;
                if (d->nargs >= 1) {
                        if (inl)
                                a = inl;
                        else if (i + 1 < argc)
                                a = argv[++i];
                        else {
                                r = acs_error_set(err, -EINVAL, "usage", "option '%s' needs a value", arg);
                                goto fail;
                        }
                }
                if (d->nargs == 2) {
                        if (i + 1 >= argc) {
                                r = acs_error_set(err, -EINVAL, "usage", "option '%s' needs two values", arg);
                                goto fail;
                        }
                        b = argv[++i];
                }
                r = apply_opt(&o, d, arg, a, b, err);
                if (r < 0)
                        goto fail;
                if (d->id == OPT_CODE) { /* like python -c: the rest are arguments */
                        i++;
                        break;
                }
        }

        for (; i < argc; i++)
                if ((r = acs_strv_push(&o.args, argv[i])) < 0)
                        goto fail;

        if (o.command == ACS_CMD_HELP || o.command == ACS_CMD_VERSION)
                goto done;
        switch (sub) {
        case ACS_CMD_RUN:
                if (!o.code && acs_strv_length(o.args) == 0) {
                        r = acs_error_set(err, -EINVAL, "usage", "nothing to run: give SCRIPT.py or -c CODE (see acs-launch --help)");
                        goto fail;
                }
                break;
        case ACS_CMD_EXEC:
                if (acs_strv_length(o.args) == 0) {
                        r = acs_error_set(err, -EINVAL, "usage", "exec: missing COMMAND (acs-launch exec [OPTIONS] -- COMMAND [ARG...])");
                        goto fail;
                }
                break;
        case ACS_CMD_CHECK:
                if (acs_strv_length(o.args) > 1) {
                        r = acs_error_set(err, -EINVAL, "usage", "check: one FILE (or -) at most");
                        goto fail;
                }
                break;
        case ACS_CMD_APPLY:
                if (acs_strv_length(o.args) != 1 || !o.workspace) {
                        r = acs_error_set(err, -EINVAL, "usage", "apply: usage: acs-launch apply DIR --workspace W");
                        goto fail;
                }
                break;
        case ACS_CMD_MCP: case ACS_CMD_PROFILES: case ACS_CMD_DOCTOR:
                if (acs_strv_length(o.args) > 0) {
                        r = acs_error_set(err, -EINVAL, "usage", "unexpected argument '%s'", o.args[0]);
                        goto fail;
                }
                break;
        default:
                break;
        }
        if (o.json && o.patch && strcmp(o.patch, "-") == 0 && sub != ACS_CMD_APPLY) {
                r = acs_error_set(err, -EINVAL, "usage", "--json owns stdout: write the patch to a file (--patch FILE)");
                goto fail;
        }
        if (o.apply && !o.workspace && sub != ACS_CMD_APPLY) {
                r = acs_error_set(err, -EINVAL, "usage", "--apply needs --workspace DIR");
                goto fail;
        }
done:
        *ret = o;
        return 0;
fail:
        if (err && err->code == 0)
                acs_error_set(err, r, "usage", "out of memory");
        acs_options_done(&o);
        return r;
}

void acs_cli_usage(FILE *out)
{
        fputs("Usage:\n"
              "  acs-launch [OPTIONS] [--] SCRIPT.py [ARG...]   run a Python file in a fresh sandbox\n"
              "  acs-launch [OPTIONS] -c CODE [ARG...]          run inline Python\n"
              "  acs-launch exec [OPTIONS] -- COMMAND [ARG...]  run a command (profile 'shell', no scan)\n"
              "  acs-launch check [OPTIONS] [FILE | -]          AST scan only; nothing runs\n"
              "  acs-launch mcp [OPTIONS]                       MCP server on stdin/stdout\n"
              "  acs-launch apply DIR --workspace W             apply a layer kept with --keep\n"
              "  acs-launch profiles [--show NAME [--json]]     list profiles, or show one's effective policy\n"
              "  acs-launch doctor                              check what this host supports\n"
              "  acs-launch bench [OPTIONS]                     built-in benchmark\n"
              "\nOptions:\n"
              "  -p, --profile NAME|PATH   policy profile (default 'default'; 'shell' for exec)\n"
              "  -w, --workspace DIR       host directory shown at /workspace (overlay lower layer)\n"
              "      --timeout SEC         wall-clock limit        --memory SIZE   address-space limit\n"
              "      --cpu SEC             CPU time of the whole sandbox\n"
              "      --processes N         processes and threads  --open-files N  --file-size SIZE\n"
              "      --venv DIR            use a Python virtual environment read-only\n"
              "      --max-tokens N        output budget           --net none|loopback\n"
              "      --ro-bind SRC DEST    --bind SRC DEST         --tmpfs DEST\n"
              "      --setenv VAR VALUE    --unsetenv VAR          --chdir DIR\n"
              "      --apply               write workspace changes back into DIR after a successful run\n"
              "      --patch FILE|-        write the changes as a git-style patch\n"
              "      --keep DIR            keep the overlay's upper layer in DIR\n"
              "      --json                print one JSON report on stdout\n"
              "      --report FILE         also write the JSON report to FILE\n"
              "  -q, --quiet               no change summary      -v, --verbose   trace setup steps\n"
              "      --max-concurrency N   (mcp) parallel calls\n"
              "      --version             -h, --help\n"
              "\nExit status: the program's own (0-123), 124 timeout, 125 acs-launch error,\n"
              "126 refused by the scan, 127 not found, 128+N killed by signal N.\n"
              "See acs-launch(1) and acs-launch.profile(5).\n",
              out);
}
