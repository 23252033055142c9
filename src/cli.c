/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * argv -> acs_options. Pure: no I/O beyond the usage text, no environment.
 * Options follow the subcommand and stop at "--" or at the first non-option
 * word (the script or command), like python(1) and bwrap(1).
 */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "http-parse.h"
#include "profile-keys.h"
#include "profile.h"

enum opt_id {
        OPT_PROFILE, OPT_WORKSPACE, OPT_TIMEOUT, OPT_MEMORY, OPT_MAX_TOKENS, OPT_NET,
        OPT_RO_BIND, OPT_BIND, OPT_TMPFS, OPT_SETENV, OPT_UNSETENV, OPT_CHDIR, OPT_APPLY,
        OPT_PATCH, OPT_KEEP, OPT_JSON, OPT_REPORT, OPT_QUIET, OPT_VERBOSE, OPT_VERSION,
        OPT_HELP, OPT_CODE, OPT_MAX_CONCURRENCY, OPT_CPU, OPT_ALLOW_PROFILE, OPT_MAX_TIMEOUT,
        OPT_STDIN, OPT_PROCESSES, OPT_OPEN_FILES, OPT_FILE_SIZE, OPT_VENV, OPT_SHOW, OPT_DRY_RUN,
        OPT_HTTP, OPT_HTTP_TOKEN_FILE,
        OPT_POOL, OPT_SOCKET, OPT_POOL_PROFILE, OPT_MAX_SESSIONS, OPT_SESSION_IDLE,
        OPT_SERVER, OPT_NO_SERVER, OPT_SESSION,
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
        { "code", 'c', 1, OPT_CODE }, /* --code: the seed documents' spelling */
        { "max-concurrency", 0, 1, OPT_MAX_CONCURRENCY },
        { "allow-profile", 0, 1, OPT_ALLOW_PROFILE },
        { "max-timeout", 0, 1, OPT_MAX_TIMEOUT },
        { "stdin", 0, 1, OPT_STDIN },
        { "processes", 0, 1, OPT_PROCESSES },
        { "open-files", 0, 1, OPT_OPEN_FILES },
        { "file-size", 0, 1, OPT_FILE_SIZE },
        { "venv", 0, 1, OPT_VENV },
        { "show", 0, 1, OPT_SHOW },
        { "dry-run", 0, 0, OPT_DRY_RUN },
        { "http", 0, 1, OPT_HTTP },
        { "http-token-file", 0, 1, OPT_HTTP_TOKEN_FILE },
        { "pool", 0, 1, OPT_POOL },
        { "socket", 0, 1, OPT_SOCKET },
        { "pool-profile", 0, 1, OPT_POOL_PROFILE },
        { "max-sessions", 0, 1, OPT_MAX_SESSIONS },
        { "session-idle", 0, 1, OPT_SESSION_IDLE },
        { "server", 0, 1, OPT_SERVER },
        { "no-server", 0, 0, OPT_NO_SERVER },
        { "session", 0, 1, OPT_SESSION },
};

static const struct {
        const char *word;
        acs_command cmd;
} subcommands[] = {
        { "run", ACS_CMD_RUN },         { "exec", ACS_CMD_EXEC },
        { "check", ACS_CMD_CHECK },     { "mcp", ACS_CMD_MCP },
        { "profiles", ACS_CMD_PROFILES }, { "bench", ACS_CMD_BENCH },
        { "benchmark", ACS_CMD_BENCH }, /* the seed documents' name; after "bench", which names it */
        { "doctor", ACS_CMD_DOCTOR },   { "apply", ACS_CMD_APPLY },
        { "help", ACS_CMD_HELP },       { "version", ACS_CMD_VERSION },
        { "serve", ACS_CMD_SERVE },
};

bool acs_cli_session_id_valid(const char *id)
{
        size_t n = id ? strlen(id) : 0;
        if (n < 1 || n > 128)
                return false;
        for (const char *p = id; *p; p++)
                if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
                      strchr("._:-", *p)))
                        return false;
        return true;
}

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
        acs_strv_free(o->allow_profiles);
        free(o->http);
        free(o->http_token_file);
        free(o->socket);
        acs_strv_free(o->pool_profiles);
        free(o->server);
        free(o->session);
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
        /* serve takes what mcp takes but --http (it serves a unix socket), and its socket */
        if (id == OPT_SOCKET)
                return cmd == ACS_CMD_SERVE;
        if (cmd == ACS_CMD_SERVE && (id == OPT_HTTP || id == OPT_HTTP_TOKEN_FILE))
                return false;
        if (cmd == ACS_CMD_SERVE)
                cmd = ACS_CMD_MCP;
        if (id == OPT_POOL || id == OPT_POOL_PROFILE || id == OPT_MAX_SESSIONS || id == OPT_SESSION_IDLE)
                return cmd == ACS_CMD_MCP;
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
        case OPT_HTTP: case OPT_HTTP_TOKEN_FILE:
        case OPT_MAX_CONCURRENCY: case OPT_ALLOW_PROFILE: case OPT_MAX_TIMEOUT:
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

/*
 * A value the profile has a key for is parsed by that key's parser, so the
 * command line and the profile accept exactly the same values and ranges
 * (--memory 1 is as wrong as memory = 1) and say the same "expected ...".
 */
static int parse_as_key(const char *section, const char *key, const char *name, const char *value,
                        acs_profile *scratch, acs_error *err)
{
        const acs_profile_key *k = acs_profile_key_find(section, key);
        char bad[64], expected[256];
        int r = acs_profile_key_apply(k, scratch, ACS_OP_SET, value, bad, sizeof bad);
        if (r == -EINVAL)
                return acs_error_set(err, r, "usage", "--%s: expected %s, got '%s'", name,
                                     acs_key_expected(k, expected, sizeof expected), value);
        return r;
}

/* A path inside the sandbox: absolute, no '..' (the profile's rule for paths). */
static int check_dest(const char *name, const char *dest, acs_error *err)
{
        if (!acs_path_is_clean_abs(dest))
                return acs_error_set(err, -EINVAL, "usage",
                                     "--%s: the destination '%s' must be an absolute path without '..'", name,
                                     dest);
        return 0;
}

static int apply_opt(acs_options *o, const opt_def *d, const char *a, const char *b, acs_error *err)
{
        acs_profile scratch = { 0 };
        int r;

        switch (d->id) {
        case OPT_PROFILE: return dup_to(&o->profile, a);
        case OPT_WORKSPACE: return dup_to(&o->workspace, a);
        case OPT_CHDIR: return dup_to(&o->chdir, a);
        case OPT_PATCH: return dup_to(&o->patch, a);
        case OPT_KEEP: return dup_to(&o->keep, a);
        case OPT_REPORT: return dup_to(&o->report, a);
        case OPT_CODE: return dup_to(&o->code, a);
        case OPT_SERVER: /* '' forces a cold run, as --no-server */
                o->has_server = true;
                free(o->server);
                o->server = NULL;
                return a[0] ? dup_to(&o->server, a) : 0;
        case OPT_NO_SERVER: o->has_server = true; free(o->server); o->server = NULL; return 0;
        case OPT_SESSION:
                if (!acs_cli_session_id_valid(a))
                        return acs_error_set(err, -EINVAL, "usage",
                                             "--session: '%s' is not a session id "
                                             "(1 to 128 of A-Z a-z 0-9 . _ : -)", a);
                return dup_to(&o->session, a);
        case OPT_APPLY: o->apply = true; return 0;
        case OPT_JSON: o->json = true; return 0;
        case OPT_QUIET: o->quiet = true; return 0;
        case OPT_DRY_RUN: o->dry_run = true; return 0;
        case OPT_VERBOSE: o->verbose++; return 0;
        case OPT_VERSION: o->command = ACS_CMD_VERSION; return 0;
        case OPT_HELP: o->command = ACS_CMD_HELP; return 0;
        case OPT_TIMEOUT:
                if ((r = parse_as_key("limits", "timeout", d->lng, a, &scratch, err)) < 0)
                        return r;
                o->timeout = scratch.timeout;
                o->has_timeout = true;
                return 0;
        case OPT_MEMORY:
                if ((r = parse_as_key("limits", "memory", d->lng, a, &scratch, err)) < 0)
                        return r;
                o->memory = scratch.memory;
                o->has_memory = true;
                return 0;
        case OPT_CPU: /* whole seconds, fractions round up (the profile key's parser) */
                if ((r = parse_as_key("limits", "cpu", d->lng, a, &scratch, err)) < 0)
                        return r;
                o->cpu = scratch.cpu;
                o->has_cpu = true;
                return 0;
        case OPT_PROCESSES: /* the ranges and words of the profile keys */
                if ((r = parse_as_key("limits", "processes", d->lng, a, &scratch, err)) < 0)
                        return r;
                o->processes = scratch.processes;
                o->has_processes = true;
                return 0;
        case OPT_OPEN_FILES:
                if ((r = parse_as_key("limits", "open_files", d->lng, a, &scratch, err)) < 0)
                        return r;
                o->open_files = scratch.open_files;
                o->has_open_files = true;
                return 0;
        case OPT_FILE_SIZE: /* 0: no limit, as the profile key */
                if ((r = parse_as_key("limits", "file_size", d->lng, a, &scratch, err)) < 0)
                        return r;
                o->file_size = scratch.file_size;
                o->has_file_size = true;
                return 0;
        case OPT_SHOW: return dup_to(&o->show, a);
        case OPT_VENV:
                if (a[0] != '/')
                        return acs_error_set(err, -EINVAL, "usage", "--%s: expected an absolute path, got '%s'",
                                             d->lng, a);
                return dup_to(&o->venv, a);
        case OPT_MAX_TOKENS:
                if ((r = parse_as_key("output", "max_tokens", d->lng, a, &scratch, err)) < 0)
                        return r;
                o->max_tokens = scratch.max_tokens;
                o->has_max_tokens = true;
                return 0;
        case OPT_NET:
                if ((r = parse_as_key("network", "mode", d->lng, a, &scratch, err)) < 0)
                        return r;
                o->net = (int)scratch.net;
                o->has_net = true;
                return 0;
        case OPT_MAX_CONCURRENCY: {
                uint64_t v;
                if (acs_parse_uint(a, &v) < 0 || v == 0 || v > 1024)
                        return acs_error_set(err, -EINVAL, "usage",
                                             "--%s: expected a whole number from 1 to 1024, got '%s'", d->lng, a);
                o->max_concurrency = (unsigned)v;
                return 0;
        }
        case OPT_ALLOW_PROFILE:
                /* what an MCP client may name: a name, never a path (see acs_profile_load_name) */
                if (!acs_profile_name_valid(a))
                        return acs_error_set(err, -EINVAL, "usage",
                                             "--%s: expected a profile name on the search path (letters, digits, "
                                             "'.', '_', '-'; no '/' and no .ini), got '%s'", d->lng, a);
                return acs_strv_contains(o->allow_profiles, a) ? 0 : acs_strv_push(&o->allow_profiles, a);
        case OPT_MAX_TIMEOUT:
                if (acs_parse_seconds(a, &o->max_timeout) < 0 || o->max_timeout <= 0)
                        return acs_error_set(err, -EINVAL, "usage", "--%s: expected seconds > 0, got '%s'", d->lng, a);
                return 0;
        case OPT_HTTP: {
                struct sockaddr_storage ss;
                socklen_t len;
                if (acs_http_parse_listen(a, &ss, &len) < 0)
                        return acs_error_set(err, -EINVAL, "usage",
                                             "--%s: expected ADDR:PORT, [ADDR6]:PORT, :PORT or PORT (IP addresses, "
                                             "no names), got '%s'", d->lng, a);
                return dup_to(&o->http, a);
        }
        case OPT_HTTP_TOKEN_FILE:
                return dup_to(&o->http_token_file, a);
        case OPT_POOL: {
                uint64_t v;
                if (acs_parse_uint(a, &v) < 0 || v > 64)
                        return acs_error_set(err, -EINVAL, "usage",
                                             "--%s: expected a whole number from 0 (no pool) to 64, got '%s'", d->lng, a);
                o->pool = (unsigned)v;
                o->has_pool = true;
                return 0;
        }
        case OPT_MAX_SESSIONS: {
                uint64_t v;
                if (acs_parse_uint(a, &v) < 0 || v > 1024)
                        return acs_error_set(err, -EINVAL, "usage",
                                             "--%s: expected a whole number from 0 (no sessions) to 1024, got '%s'", d->lng, a);
                o->max_sessions = (unsigned)v;
                o->has_max_sessions = true;
                return 0;
        }
        case OPT_SESSION_IDLE:
                if (acs_parse_seconds(a, &o->session_idle) < 0 || o->session_idle < 0)
                        return acs_error_set(err, -EINVAL, "usage", "--%s: expected seconds (0: never), got '%s'", d->lng, a);
                o->has_session_idle = true;
                return 0;
        case OPT_POOL_PROFILE:
                if (!acs_profile_name_valid(a))
                        return acs_error_set(err, -EINVAL, "usage", "--%s: expected a profile name, got '%s'", d->lng, a);
                return acs_strv_contains(o->pool_profiles, a) ? 0 : acs_strv_push(&o->pool_profiles, a);
        case OPT_SOCKET:
                if (!*a)
                        return acs_error_set(err, -EINVAL, "usage", "--%s: expected a path", d->lng);
                free(o->socket);
                return (o->socket = strdup(a)) ? 0 : -ENOMEM;
        case OPT_RO_BIND:
        case OPT_BIND:
                if ((r = check_dest(d->lng, b, err)) < 0)
                        return r;
                return add_mount(o, d->id == OPT_BIND ? ACS_MOUNT_BIND : ACS_MOUNT_RO_BIND, a, b);
        case OPT_TMPFS:
                if ((r = check_dest(d->lng, a, err)) < 0)
                        return r;
                return add_mount(o, ACS_MOUNT_TMPFS, NULL, a);
        case OPT_SETENV: {
                if (!*a || strchr(a, '='))
                        return acs_error_set(err, -EINVAL, "usage", "--%s: bad variable name '%s'", d->lng, a);
                _cleanup_free_ char *kv = NULL;
                if (asprintf(&kv, "%s=%s", a, b) < 0)
                        return -ENOMEM;
                return acs_strv_push(&o->setenv, kv);
        }
        case OPT_UNSETENV: return acs_strv_push(&o->unsetenv, a);
        case OPT_STDIN: {
                static const char *const modes[] = { "auto", "null", "pipe", "tty" };
                for (size_t k = 0; k < ELEMENTSOF(modes); k++)
                        if (strcmp(a, modes[k]) == 0) {
                                o->stdin_mode = (acs_stdin_mode)k;
                                return 0;
                        }
                return acs_error_set(err, -EINVAL, "usage",
                                     "--%s: expected 'auto', 'null', 'pipe' or 'tty', got '%s'", d->lng, a);
        }
        }
        return 0;
}

static const char *subcommand_name(acs_command cmd)
{
        for (size_t k = 0; k < ELEMENTSOF(subcommands); k++)
                if (subcommands[k].cmd == cmd)
                        return subcommands[k].word;
        return "run";
}

/* "unknown option" with the nearest long option, when one is near. */
static int unknown_option(const char *arg, acs_error *err)
{
        const char *name = arg + strspn(arg, "-");
        size_t len = strcspn(name, "="), best = SIZE_MAX;
        const char *near = NULL;
        char word[64];

        if (len > 0 && len < sizeof word) {
                memcpy(word, name, len);
                word[len] = '\0';
                for (size_t i = 0; i < ELEMENTSOF(opts_table); i++) {
                        if (!opts_table[i].lng)
                                continue;
                        size_t d = acs_edit_distance(word, opts_table[i].lng);
                        if (d < best) {
                                best = d;
                                near = opts_table[i].lng;
                        }
                }
        }
        /* a typo, or a long option written with one dash (-json) */
        if (near && (best == 0 || (best <= 2 && best * 3 <= len)))
                return acs_error_set(err, -EINVAL, "usage",
                                     "unknown option '%s'; did you mean '--%s'? (see acs-launch --help)", arg, near);
        return acs_error_set(err, -EINVAL, "usage", "unknown option '%s' (see acs-launch --help)", arg);
}

static bool is_run_like(acs_command cmd)
{
        return cmd == ACS_CMD_RUN || cmd == ACS_CMD_EXEC;
}

static acs_command leading_subcommand(int argc, char *const *argv, int *i)
{
        if (*i < argc)
                for (size_t k = 0; k < ELEMENTSOF(subcommands); k++)
                        if (strcmp(argv[*i], subcommands[k].word) == 0) {
                                (*i)++;
                                return subcommands[k].cmd;
                        }
        return ACS_CMD_RUN;
}

bool acs_cli_json_requested(int argc, char *const *argv)
{
        int i = 1;
        acs_command sub = leading_subcommand(argc, argv, &i);

        for (; i < argc; i++) {
                const char *arg = argv[i], *inl;
                if (strcmp(arg, "--") == 0)
                        break;
                if (arg[0] != '-' || arg[1] == '\0') {
                        if (is_run_like(sub))
                                break;
                        continue;
                }
                const opt_def *d = find_opt(arg, &inl);
                if (!d)
                        continue;
                if (d->id == OPT_JSON)
                        return true;
                if (d->id == OPT_CODE && arg[1] != '-') /* -c, not --code */
                        break;
                i += (int)d->nargs - (inl && d->nargs ? 1 : 0);
        }
        return false;
}

int acs_cli_parse(int argc, char *const *argv, acs_options *ret, acs_error *err)
{
        acs_options o = { .command = ACS_CMD_RUN };
        int i = 1, r;

        o.command = leading_subcommand(argc, argv, &i);
        acs_command sub = o.command;
        /* -h after a subcommand is that subcommand's help */
        o.help_topic = i > 1 ? sub : ACS_CMD_HELP;

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
                        r = unknown_option(arg, err);
                        goto fail;
                }
                if (!allowed_for(sub, d->id)) {
                        r = acs_error_set(err, -EINVAL, "usage", "option '%s' does not apply to %s (see acs-launch %s --help)",
                                          arg, subcommand_name(sub), subcommand_name(sub));
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
                r = apply_opt(&o, d, a, b, err);
                if (r < 0)
                        goto fail;
                /* -c as in python -c: the rest are arguments. --code (the seed
                 * documents' spelling) is an option like the others, so that
                 * `run --code CODE --timeout 2.0` means what it says. */
                if (d->id == OPT_CODE && arg[1] != '-') {
                        i++;
                        break;
                }
        }

        for (; i < argc; i++)
                if ((r = acs_strv_push(&o.args, argv[i])) < 0)
                        goto fail;

        if (sub == ACS_CMD_HELP && o.command == ACS_CMD_HELP && o.args) {
                /* acs-launch help SUBCOMMAND */
                int k = 0;
                acs_command topic = leading_subcommand(1, o.args, &k);
                if (acs_strv_length(o.args) > 1 || k == 0 || topic == ACS_CMD_HELP || topic == ACS_CMD_VERSION) {
                        r = acs_error_set(err, -EINVAL, "usage", "help: no subcommand '%s' (run, exec, check, mcp, apply, "
                                          "profiles, doctor, bench)", o.args[0]);
                        goto fail;
                }
                o.help_topic = topic;
        }
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
                if (o.http_token_file && !o.http) {
                        r = acs_error_set(err, -EINVAL, "usage", "mcp: --http-token-file goes with --http ADDR:PORT");
                        goto fail;
                }
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

#define RUN_OPTIONS                                                                                      \
        "  -p, --profile NAME|PATH   policy profile (default 'default'; 'shell' for exec)\n"                 \
        "  -w, --workspace DIR       host directory shown at /workspace (overlay lower layer)\n"             \
        "      --timeout SEC         wall-clock limit: decimal seconds (1.5), 0 for none\n"                  \
        "      --cpu SEC             CPU time of the whole sandbox (whole seconds, rounded up)\n"           \
        "      --processes N         processes and threads   --open-files N   --file-size SIZE\n"           \
        "      --memory SIZE         memory limit (K, M, G suffixes), at least 16M; 0 for none\n"           \
        "      --max-tokens N        output budget for stdout and stderr, 1 to 4194304\n"                     \
        "      --net none|loopback   network namespace\n"                                                    \
        "      --venv DIR            (run) a Python virtual environment, read-only\n"                        \
        "      --ro-bind SRC DEST    --bind SRC DEST   --tmpfs DEST   (DEST absolute, no '..')\n"            \
        "      --setenv VAR VALUE    --unsetenv VAR    --chdir DIR\n"                                         \
        "      --apply               write workspace changes back into DIR after a successful run\n"         \
        "      --patch FILE|-        write the changes as a git-style patch\n"                                \
        "      --keep DIR            keep the overlay's upper layer in DIR\n"                                 \
        "      --json                print one JSON report on stdout (also for errors)\n"                    \
        "      --report FILE         also write the JSON report to FILE\n"                                    \
        "      --stdin MODE          auto|null|pipe|tty: the program's stdin (auto: a terminal -> /dev/null)\n" \
        "  -q, --quiet               no change summary     -v, --verbose   trace setup steps\n"             \
        "      --dry-run             print the plan (mounts, env, limits, layers) and exit; nothing runs\n" \
        "      --server PATH         run in a ready sandbox of `acs-launch serve --socket PATH`\n"  \
        "                            (default $ACS_SERVER); cold when it cannot   --no-server\n"     \
        "      --session ID          (run -c, needs a server) keep globals and workspace between runs\n"

#define EXIT_STATUS                                                                                      \
        "\nExit status: the program's own (0-123), 124 timeout, 125 acs-launch error,\n"                     \
        "126 refused by the scan, 127 not found, 128+N killed by signal N. A program\n"                      \
        "may exit 124-127 itself: only the report's status tells them apart.\n"

static const struct {
        acs_command cmd;
        const char *text;
} usages[] = {
        { ACS_CMD_RUN,
          "Usage: acs-launch [run] [OPTIONS] [--] SCRIPT.py [ARG...]\n"
          "       acs-launch [run] [OPTIONS] -c CODE [ARG...]\n"
          "Run a Python file or inline code in a fresh sandbox, after the AST scan.\n"
          "Options stop at '--' or at the script; later words are its arguments.\n\n"
          "Options:\n" RUN_OPTIONS "  -c CODE                   inline Python (like python3 -c: later words are its arguments)\n"
                                 "      --code CODE           inline Python; options may follow, arguments after '--'\n" EXIT_STATUS },
        { ACS_CMD_EXEC,
          "Usage: acs-launch exec [OPTIONS] -- COMMAND [ARG...]\n"
          "Run a command in a fresh sandbox (profile 'shell' by default; no scan).\n\n"
          "Options:\n" RUN_OPTIONS EXIT_STATUS },
        { ACS_CMD_CHECK,
          "Usage: acs-launch check [OPTIONS] [FILE | -]\n"
          "Scan Python source against a profile; nothing runs. Exit 0 pass, 126 refused, 125 error.\n\n"
          "Options:\n"
          "  -p, --profile NAME|PATH   policy profile (default 'default')\n"
          "      --json                print the result as one JSON object\n" },
        { ACS_CMD_MCP,
          "Usage: acs-launch mcp [OPTIONS]\n"
          "Serve the sandbox over the Model Context Protocol on stdin/stdout.\n\n"
          "Options:\n"
          "  -p, --profile NAME|PATH   profile for execute_python (default 'default')\n"
          "  -w, --workspace DIR       host directory shown at /workspace in every call\n"
          "      --timeout SEC         --memory SIZE   --max-tokens N   --net none|loopback\n"
          "      --max-concurrency N   tool calls run in parallel, 1 to 1024 (default: CPUs, at least 4)\n"
          "      --allow-profile NAME  a profile clients may choose besides --profile (repeatable)\n"
          "      --max-timeout SEC     longest timeout a client may ask for (default 60)\n"
          "      --http ADDR:PORT      serve Streamable HTTP at http://ADDR:PORT/mcp instead of stdio\n"
          "                            (PORT or :PORT: 127.0.0.1)\n"
          "      --http-token-file FILE  clients must send Authorization: Bearer <the token in FILE>\n"
          "      --pool N              sandboxes kept ready for execute_python, 0 to 64 (default 2)\n"
          "      --pool-profile NAME   also keep N ready for allowed profile NAME (repeatable)\n"
          "      --max-sessions N      sessions at once per client, 0 to 1024 (default 8)\n"
          "      --session-idle SEC    end a session idle this long (default 600; 0: never)\n" },
        { ACS_CMD_SERVE,
          "Usage: acs-launch serve --socket PATH [OPTIONS]\n"
          "Serve what `acs-launch mcp` serves on a unix socket (mode 0600), one client per\n"
          "connection; with no --socket, the socket systemd passes (LISTEN_FDS).\n\n"
          "Options: those of acs-launch mcp, and\n"
          "      --socket PATH         the socket to create (an existing socket is replaced)\n"
          "      --pool N              sandboxes kept ready per connection, 0 to 64 (default 2)\n"
          "      --pool-profile NAME   also keep N ready for allowed profile NAME (repeatable)\n"
          "      --max-sessions N      sessions at once per client, 0 to 1024 (default 8)\n"
          "      --session-idle SEC    end a session idle this long (default 600; 0: never)\n" },
        { ACS_CMD_APPLY,
          "Usage: acs-launch apply DIR --workspace W [--json] [--patch FILE|-]\n"
          "Apply a layer kept with --keep DIR to the workspace W, after review.\n\n"
          "Options:\n"
          "  -w, --workspace W         the workspace the layer was made from\n"
          "      --patch FILE|-        also write the kept patch\n"
          "      --json                print the result as one JSON object\n" },
        { ACS_CMD_PROFILES,
          "Usage: acs-launch profiles [--show NAME|PATH [--json]]\n"
          "List the profiles on the search path: name, description, file;\n"
          "with --show, one profile's effective policy after inheritance.\n" },
        { ACS_CMD_DOCTOR,
          "Usage: acs-launch doctor\n"
          "Check what this host supports; exit 1 when an essential check fails.\n" },
        { ACS_CMD_BENCH,
          "Usage: acs-launch bench [--json]\n"
          "Time a hello-world run against bare python3 and bwrap.\n" },
};

void acs_cli_usage(FILE *out, acs_command topic)
{
        for (size_t i = 0; i < ELEMENTSOF(usages); i++)
                if (usages[i].cmd == topic) {
                        fputs(usages[i].text, out);
                        fputs("See acs-launch(1).\n", out);
                        return;
                }
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
              "  acs-launch SUBCOMMAND --help                   options of one subcommand\n"
              "\nOptions of run and exec:\n" RUN_OPTIONS
              "      --version             -h, --help\n" EXIT_STATUS
              "See acs-launch(1) and acs-launch.profile(5).\n",
              out);
}
