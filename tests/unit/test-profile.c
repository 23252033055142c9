/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Profile parsing and validation, table-driven and pure: profiles come from
 * strings and an in-memory reader. Only the last checks read the shipped
 * profiles and man page from $ACS_SRCDIR.
 *
 * `test-profile --man-keys` prints the generated KEYS part of
 * acs-launch.profile(5) (used by `make update-profile-man`).
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <json-c/json.h>

#include "profile-keys.h"
#include "profile-show.h"
#include "profile.h"
#include "tap.h"

/* ---- an in-memory profile directory ------------------------------------------------ */

typedef struct mem_file {
        const char *name; /* what `inherit` names */
        const char *text;
} mem_file;

typedef struct mem_dir {
        const mem_file *files;
        char last_ref[256]; /* the last name the reader was asked for */
} mem_dir;

static int mem_reader(void *userdata, const char *name, char **ret_text, char **ret_path,
                      acs_error *err)
{
        mem_dir *d = userdata;
        snprintf(d->last_ref, sizeof d->last_ref, "%s", name);
        for (const mem_file *f = d->files; f->name; f++)
                if (strcmp(f->name, name) == 0) {
                        *ret_text = strdup(f->text);
                        if (asprintf(ret_path, "mem/%s.ini", name) < 0)
                                return -ENOMEM;
                        return 0;
                }
        return acs_error_set(err, -ENOENT, "profile", "profile '%s' not found; searched mem/", name);
}

static int parse(const char *text, mem_dir *dir, acs_profile **ret, acs_error *err)
{
        memset(err, 0, sizeof *err);
        return acs_profile_parse(text, "test.ini", "test", dir ? mem_reader : NULL, dir, ret, err);
}

static bool contains(const char *hay, const char *needle)
{
        return hay && needle && strstr(hay, needle);
}

#define has_msg(err, needle, name)                                                          \
        do {                                                                                \
                ok(contains((err).msg, needle), "%s", name);                                \
                if (!contains((err).msg, needle))                                           \
                        diag("message: %s\n#   lacks: %s", (err).msg, needle);             \
        } while (0)

/* ---- every key with a good and a bad value --------------------------------------------- */

static const struct {
        const char *section, *key, *good, *bad;
} key_cases[] = {
        { "profile", "description", "Some words, with commas", NULL },
        { "profile", "inherit", "base", "two names" },
        { "profile", "locked", "timeout memory, net cpu", "timeout disk" },
        { "scan", "mode", "warn", "strict" },
        { "scan", "allow_imports", "math, json xml.dom", "os/path" },
        { "scan", "allow_imports", "numpy.* json.decoder", "numpy.*.x" },
        { "scan", "allow_imports", "a.b.*", ".*" },
        { "scan", "deny_builtins", "eval exec", "ev-al" },
        { "scan", "deny_attributes", "__dict__ f_globals", "a.b" },
        { "scan", "deny_members", "os.system os.exec*, numpy.ctypeslib", "system" },
        { "scan", "max_source", "64K", "lots" },
        { "python", "interpreter", "/usr/bin/python3", "python3" },
        { "python", "flags", "-I -S -X importtime", NULL },
        { "python", "venv", "/opt/venv", "venv" },
        { "filesystem", "ro_bind", "/usr, /etc/ssl /opt", "/usr/../etc" },
        { "filesystem", "sockets", "/run/user/1000/bus /tmp/.X11-unix/X0", "run/bus" },
        { "filesystem", "tmpfs", "/tmp /var/tmp", "tmp" },
        { "filesystem", "workspace", "readonly", "rw" },
        { "filesystem", "workspace_size", "1G", "512K" },
        { "filesystem", "hostname", "box-1.local", "bad_host!" },
        { "filesystem", "protect", ".git *.key secrets/**", "../up" },
        { "filesystem", "apply", "always", "sometimes" },
        { "limits", "timeout", "2.5", "-1" },
        { "limits", "cpu", "1.5", "1m" },
        { "limits", "memory", "1G", "256" },
        { "limits", "memory_rlimit", "fallback", "never" },
        { "limits", "processes", "100", "0" },
        { "limits", "file_size", "unlimited", "1X" },
        { "limits", "open_files", "256", "4" },
        { "output", "max_tokens", "4000", "0" },
        { "output", "ansi", "keep", "drop" },
        { "network", "mode", "loopback", "host" },
        { "seccomp", "deny", "ptrace, mount chroot", "not_a_syscall" },
        { "env", "keep", "LANG TERM", "1BAD" },
        { "env", "set", "A=1 B=x,y C=", "NOEQUALS" },
        { "env", "allow_loader", "LD_PRELOAD, PYTHONPATH", "LD-PRELOAD" },
};

static void test_keys(void)
{
        char text[512], want[256];
        acs_error err;

        /* the test covers the whole table */
        for (size_t i = 0; i < acs_profile_n_keys; i++) {
                const acs_profile_key *k = &acs_profile_key_table[i];
                bool found = false;
                for (size_t j = 0; j < ELEMENTSOF(key_cases); j++)
                        found |= strcmp(key_cases[j].section, k->section) == 0 &&
                                 strcmp(key_cases[j].key, k->key) == 0;
                ok(found, "key table entry [%s] %s has a test case", k->section, k->key);
                ok(k->doc && *k->doc, "[%s] %s is documented", k->section, k->key);
        }

        static const mem_file base[] = { { "base", "[profile]\ndescription = base\n" }, { 0 } };
        for (size_t j = 0; j < ELEMENTSOF(key_cases); j++) {
                _cleanup_profile_ acs_profile *p = NULL;
                mem_dir dir = { .files = base };
                snprintf(text, sizeof text, "; comment\n[%s]\n%s = %s\n", key_cases[j].section,
                         key_cases[j].key, key_cases[j].good);
                int r = parse(text, &dir, &p, &err);
                ok(r == 0 && p, "[%s] %s = %s is accepted", key_cases[j].section, key_cases[j].key,
                   key_cases[j].good);
                if (r < 0)
                        diag("%s", err.msg);
                if (!key_cases[j].bad)
                        continue;

                _cleanup_profile_ acs_profile *q = NULL;
                snprintf(text, sizeof text, "; comment\n[%s]\n%s = %s\n", key_cases[j].section,
                         key_cases[j].key, key_cases[j].bad);
                r = parse(text, &dir, &q, &err);
                ok(r == -EINVAL && !q, "[%s] %s = %s is refused", key_cases[j].section,
                   key_cases[j].key, key_cases[j].bad);
                snprintf(want, sizeof want, "test.ini:3: [%s] %s: ", key_cases[j].section,
                         key_cases[j].key);
                has_msg(err, want, "  message names file, line, section and key");
                if (strcmp(key_cases[j].key, "inherit") != 0) {
                        has_msg(err, ": expected ", "  message says what was expected");
                        has_msg(err, "(got '", "  message quotes the bad value");
                }
                is_int(err.exit_status, 125, "  exit status 125");
                is_str(err.stage, "profile", "  stage profile");
        }
}

/* ---- values land in the right fields ------------------------------------------------------- */

static void test_values(void)
{
        _cleanup_profile_ acs_profile *p = NULL;
        acs_error err;
        int r = parse("[profile]\ndescription = A test\n  profile\nlocked = max-tokens network "
                      "ro_bind\n[scan]\nmode = off\nallow_imports = math,json  re\tjson\n"
                      "[filesystem]\nworkspace = none\nworkspace_size = 2M\napply = never\n"
                      "[limits]\ntimeout = 0.25\ncpu = 2.1\nmemory = 0\nfile_size = 1k\n"
                      "[output]\nansi = keep\nmax_tokens = 50\n[network]\nmode = loopback\n"
                      "[env]\nset = A=1 B=2,3\n",
                      NULL, &p, &err);
        is_int(r, 0, "a full profile parses");
        if (r < 0) {
                diag("%s", err.msg);
                return;
        }
        is_str(p->name, "test", "name");
        is_str(p->path, "test.ini", "path");
        is_str(p->description, "A test profile", "description continues on an indented line");
        ok(acs_profile_is_locked(p, "max_tokens") && acs_profile_is_locked(p, "max-tokens"),
           "locked max-tokens is max_tokens");
        ok(acs_profile_is_locked(p, "net") && acs_profile_is_locked(p, "network"),
           "locked network is net");
        ok(acs_profile_is_locked(p, "bind") && acs_profile_is_locked(p, "ro-bind"),
           "locked ro_bind is bind");
        ok(!acs_profile_is_locked(p, "timeout") && !acs_profile_is_locked(p, "nonsense"),
           "timeout is not locked");
        is_int(p->scan_mode, ACS_SCAN_OFF, "scan mode off");
        is_int(acs_strv_length(p->allow_imports), 3, "commas, spaces, tabs split; duplicates dropped");
        is_str(p->allow_imports[0], "math", "  first");
        is_str(p->allow_imports[2], "re", "  third");
        is_int(p->workspace, ACS_WS_NONE, "workspace none");
        is_int(p->workspace_size, 2 << 20, "workspace_size 2M");
        is_int(p->apply, ACS_APPLY_NEVER, "apply never");
        ok(p->timeout == 0.25, "timeout 0.25");
        is_int(p->cpu, 3, "cpu 2.1 rounds up to 3");
        is_int(p->memory, 0, "memory 0 = none");
        is_int(p->file_size, 1024, "file_size 1k");
        is_int(p->ansi, ACS_ANSI_KEEP, "ansi keep");
        is_int(p->max_tokens, 50, "max_tokens 50");
        is_int(p->net, ACS_NET_LOOPBACK, "network loopback");
        is_int(acs_strv_length(p->env_set), 2, "env set splits on spaces only");
        is_str(p->env_set[1], "B=2,3", "  a value keeps its comma");
        is_str(acs_net_mode_to_string(p->net), "loopback", "net mode name");
        is_str(acs_scan_mode_to_string(p->scan_mode), "off", "scan mode name");
        is_str(acs_ws_mode_to_string(p->workspace), "none", "workspace mode name");
        is_str(acs_apply_mode_to_string(p->apply), "never", "apply mode name");
        is_str(acs_ansi_mode_to_string(p->ansi), "keep", "ansi mode name");
}

static void test_defaults(void)
{
        _cleanup_profile_ acs_profile *p = NULL;
        acs_error err;
        is_int(parse("", NULL, &p, &err), 0, "an empty profile parses");
        if (!p)
                return;
        is_int(p->scan_mode, ACS_SCAN_ENFORCE, "default scan enforce");
        is_int(p->net, ACS_NET_NONE, "default network none");
        is_int(p->workspace, ACS_WS_OVERLAY, "default workspace overlay");
        is_int(p->workspace_size, 128 << 20, "default workspace_size 128M");
        ok(p->timeout == 5, "default timeout 5");
        is_int(p->cpu, 5, "default cpu 5");
        is_int(p->memory, 256 << 20, "default memory 256M");
        is_int(p->processes, 32, "default processes 32");
        is_int(p->file_size, 64 << 20, "default file_size 64M");
        is_int(p->open_files, 64, "default open_files 64");
        is_int(p->max_tokens, 1000, "default max_tokens 1000");
        is_int(p->max_source, 1 << 20, "default max_source 1M");
        is_int(p->apply, ACS_APPLY_SUCCESS, "default apply success");
        is_int(p->ansi, ACS_ANSI_STRIP, "default ansi strip");
        is_str(p->interpreter, ACS_PYTHON, "default interpreter is the configured python");
        is_str(p->hostname, "sandbox", "default hostname");
        ok(p->python_flags && acs_strv_length(p->python_flags) == 2 &&
                   strcmp(p->python_flags[0], "-I") == 0 && strcmp(p->python_flags[1], "-S") == 0,
           "default flags -I -S");
        ok(acs_strv_contains(p->ro_bind, "/usr") && acs_strv_contains(p->ro_bind, "/etc/ssl") &&
                   acs_strv_length(p->ro_bind) == 2,
           "default ro_bind /usr /etc/ssl");
        ok(acs_strv_length(p->tmpfs) == 1 && strcmp(p->tmpfs[0], "/tmp") == 0, "default tmpfs /tmp");
        ok(acs_strv_contains(p->env_keep, "LANG") && acs_strv_contains(p->env_keep, "LC_ALL"),
           "default env keep");
        ok(acs_strv_contains(p->env_set, "PYTHONHASHSEED=0") &&
                   acs_strv_contains(p->env_set, "HOME=/workspace") &&
                   acs_strv_contains(p->env_set, "PATH=/usr/local/bin:/usr/bin:/bin"),
           "default env set");
        ok(p->allow_imports && !p->allow_imports[0], "default allow_imports: empty, not NULL");
        ok(p->seccomp_deny && p->locked && p->protect, "default lists are never NULL");
        ok(acs_strv_contains(p->deny_builtins, "eval") &&
                   acs_strv_contains(p->deny_builtins, "__import__"),
           "default deny_builtins");
        ok(acs_strv_contains(p->deny_attributes, "__subclasses__") &&
                   acs_strv_contains(p->deny_attributes, "_os"),
           "default deny_attributes");
        ok(acs_strv_contains(p->protect, ".git"), "default protect .git");
        ok(p->description && !*p->description, "default description empty");
        ok(!p->inherit, "no inherit");
}

/* ---- syntax, unknown names, line numbers --------------------------------------------------- */

static const struct {
        const char *text, *want, *name;
} error_cases[] = {
        { "[scan]\nalow_imports = math\n", "test.ini:2: [scan] alow_imports: unknown key; did you "
                                           "mean 'allow_imports'?",
          "misspelt key suggests the nearest" },
        { "[limits]\nmemroy = 1G\n", "did you mean 'memory'?", "transposition is one edit" },
        { "[output]\ntimeout = 3\n", "test.ini:2: [output] timeout: unknown key in this section; "
                                     "did you mean 'timeout' in [limits]?",
          "key in the wrong section names the right one" },
        { "[limits]\nzzzzzzzz = 1\n", "unknown key, expected one of timeout, cpu, memory",
          "far-off key lists the section's keys" },
        { "[scna]\nmode = off\n", "test.ini:1: [scna]: unknown section; did you mean '[scan]'?",
          "misspelt section suggests the nearest" },
        { "[scan]\nmode = off\n[limtis]\n", "test.ini:3: [limtis]: unknown section; did you mean "
                                           "'[limits]'?",
          "an empty misspelt section is found too" },
        { "[qqqqqqqqqq]\n", "unknown section, expected one of [profile] [scan]",
          "far-off section lists the sections" },
        { "mode = off\n", "test.ini:1: mode: expected a [section] line before the first key",
          "key before any section" },
        { "[scan]\nmode = off\n\n; c\n[limits\n", "test.ini:5: syntax error",
          "unclosed section header" },
        { "[scan]\nmode = off\njust words\n", "test.ini:3: syntax error: expected '[section]', "
                                             "'key = value' or an indented continuation line "
                                             "(got 'just words')",
          "line without '='" },
        { "[scan]\nmode = off\nmode = warn\n", "test.ini:3: [scan] mode: set twice (first on line "
                                              "2)",
          "a key set twice" },
        /* the value grammar the command line shares (issue 12 item 9) */
        { "[limits]\ntimeout = 0x10\n", "test.ini:2: [limits] timeout: expected seconds such as 5 or 0.5 "
                                       "(decimal digits, at most 1000000000), 0 for none (got '0x10')",
          "a hex timeout is refused, not read as 16" },
        { "[limits]\ncpu = 1e3\n", "test.ini:2: [limits] cpu: expected seconds", "an exponent is refused" },
        { "[limits]\ntimeout = 1000000001\n", "(got '1000000001')", "a timeout over 1e9 s is refused" },
        { "[limits]\nmemory = 1\n", "test.ini:2: [limits] memory: expected a size such as 64M (K, M, G "
                                    "suffixes) of at least 16M, or 0 for none (got '1')",
          "a memory limit below what python3 starts in is refused, naming the minimum" },
        { "[output]\nmax_tokens = 0x10\n", "test.ini:2: [output] max_tokens: expected a whole number from 1 "
                                          "to 4194304 (got '0x10')",
          "a hex token budget is refused" },
        { "[env]\nallow_loader = LD_PRELOAD /x\n", "test.ini:2: [env] allow_loader: expected environment "
                                                  "variable names (got '/x')",
          "allow_loader takes variable names" },
        { "[limits]\ntimeout += 3\n", "test.ini:2: [limits] timeout: expected '=', only list keys "
                                      "take += and -=",
          "+= on a scalar" },
        { "[limits]\ntimeout = 3\n  4\n", "test.ini:3: [limits] timeout: expected one value",
          "continuation of a scalar" },
        { "[limits]\ntimeout = 3 # three\n", "(got '3 # three'); comments after a value start "
                                             "with ';'",
          "a '#' comment after a value gets a hint" },
        { "\n\n; one\n# two\n[scan]\nallow_imports = math\n  json\n\n  re os\n[limits]\ncpu = x\n",
          "test.ini:11: [limits] cpu: expected seconds", "line numbers count comments, blank and "
                                                         "continuation lines" },
        { "[scan]\nallow_imports = math\n  json os..path\n", "test.ini:2: [scan] allow_imports: "
                                                            "expected Python module names such "
                                                            "as json, xml.dom or numpy.* (got 'os..path')",
          "a bad element of a continued list is quoted, at the key's line" },
        { "[network]\nmode = none ; ok\n[limits]\nprocesses = 99999999999\n",
          "test.ini:4: [limits] processes: expected a whole number from 1 to 4194304 (got "
          "'99999999999')",
          "out-of-range number names the range" },
        { "[limits]\nmemory = 1M\n", "expected a size such as 64M (K, M, G suffixes) of at least "
                                     "16M, or 0 for none (got '1M')",
          "too-small memory names the minimum" },
};

static void test_errors(void)
{
        for (size_t i = 0; i < ELEMENTSOF(error_cases); i++) {
                _cleanup_profile_ acs_profile *p = NULL;
                acs_error err;
                int r = parse(error_cases[i].text, NULL, &p, &err);
                ok(r == -EINVAL && !p, "%s: refused", error_cases[i].name);
                has_msg(err, error_cases[i].want, "  message");
        }

        /* inih would cut a long line in two; we refuse it with its number */
        char text[600] = "[scan]\nallow_imports = ";
        size_t n = strlen(text);
        for (size_t i = 0; i < 60; i++)
                n += snprintf(text + n, sizeof text - n, "mod%zu ", i);
        snprintf(text + n, sizeof text - n, "\n");
        _cleanup_profile_ acs_profile *p = NULL;
        acs_error err;
        ok(parse(text, NULL, &p, &err) == -EINVAL, "a line over 198 characters is refused");
        has_msg(err, "test.ini:2: line is longer than 198 characters", "  with its line number");

        /* CRLF and a byte-order mark are fine */
        _cleanup_profile_ acs_profile *q = NULL;
        ok(parse("\xEF\xBB\xBF[limits]\r\ntimeout = 7\r\n", NULL, &q, &err) == 0 && q &&
                   q->timeout == 7,
           "BOM and CRLF line ends are accepted");
}

/* ---- lists: += and -= ------------------------------------------------------------------------ */

static void test_lists(void)
{
        static const mem_file files[] = {
                { "base", "[profile]\ndescription = Base\n[scan]\nallow_imports = math json\n"
                          "[limits]\ntimeout = 9\nmemory = 1G\n[env]\nkeep = LANG\n" },
                { 0 },
        };
        mem_dir dir = { .files = files };
        _cleanup_profile_ acs_profile *p = NULL;
        acs_error err;
        int r = parse("[profile]\ninherit = base\n[scan]\nallow_imports += re, math\n"
                      "allow_imports -= json\n[env]\nkeep -= LANG\nkeep += TERM\n",
                      &dir, &p, &err);
        is_int(r, 0, "+= and -= parse");
        if (!p) {
                diag("%s", err.msg);
                return;
        }
        is_int(acs_strv_length(p->allow_imports), 2, "+= appends without duplicates, -= removes");
        is_str(p->allow_imports[0], "math", "  math kept");
        is_str(p->allow_imports[1], "re", "  re appended");
        is_int(acs_strv_length(p->env_keep), 1, "keep -= LANG, += TERM");
        is_str(p->env_keep[0], "TERM", "  TERM");
}

/* ---- inherit ------------------------------------------------------------------------------------ */

static void test_inherit(void)
{
        static const mem_file files[] = {
                { "base", "[profile]\ndescription = Base\n[scan]\nallow_imports = math json\n"
                          "[limits]\ntimeout = 9\nmemory = 1G\n" },
                { "mid", "[profile]\ninherit = base\n[limits]\nmemory = 512M\n" },
                { "a", "[profile]\ninherit = b\n" },
                { "b", "[profile]\ninherit = a\n" },
                { "self", "[profile]\ninherit = self\n" },
                { "broken", "[profile]\ndescription = x\n[limits]\ntimeout = soon\n" },
                { "c0", "[profile]\ninherit = c1\n" }, { "c1", "[profile]\ninherit = c2\n" },
                { "c2", "[profile]\ninherit = c3\n" }, { "c3", "[profile]\ninherit = c4\n" },
                { "c4", "[profile]\ninherit = c5\n" }, { "c5", "[profile]\ninherit = c6\n" },
                { "c6", "[profile]\ninherit = c7\n" }, { "c7", "[profile]\ninherit = c8\n" },
                { "c8", "[profile]\ninherit = c9\n" }, { "c9", "[limits]\ntimeout = 1\n" },
                { "dir/../base.ini", "[limits]\ntimeout = 4\n" },
                { 0 },
        };
        mem_dir dir = { .files = files };
        acs_error err;

        _cleanup_profile_ acs_profile *p = NULL;
        int r = parse("[profile]\ninherit = mid\n[scan]\nallow_imports = re\n[limits]\ntimeout = 2\n",
                      &dir, &p, &err);
        is_int(r, 0, "a two-level chain parses");
        if (p) {
                ok(p->timeout == 2, "the child's timeout wins");
                is_int(p->memory, 512 << 20, "the middle profile's memory wins over the base's");
                is_int(acs_strv_length(p->allow_imports), 1, "a child's list replaces the parent's");
                is_str(p->description, "Base", "unset keys come from the parent");
                is_str(p->name, "test", "the child keeps its own name");
                is_str(p->path, "test.ini", "the child keeps its own path");
                is_str(p->inherit, "mid", "inherit is recorded");
                is_int(p->processes, 32, "keys no profile sets keep the defaults");
        }

        _cleanup_profile_ acs_profile *q = NULL;
        r = parse("[limits]\ntimeout = 3\n[profile]\ninherit = base\n", &dir, &q, &err);
        ok(r == 0 && q && q->timeout == 3, "the child wins even when inherit comes last");

        _cleanup_profile_ acs_profile *l = NULL;
        r = parse("[profile]\ninherit = a\n", &dir, &l, &err);
        ok(r == -EINVAL && !l, "an inherit loop is refused");
        has_msg(err, "inherit from itself", "  message says loop");
        has_msg(err, "mem/a.ini -> mem/b.ini -> mem/a.ini", "  message shows the loop");
        has_msg(err, "mem/b.ini:2: [profile] inherit:", "  at the file and line that closes it");

        _cleanup_profile_ acs_profile *s = NULL;
        r = parse("[profile]\ninherit = self\n", &dir, &s, &err);
        ok(r == -EINVAL && contains(err.msg, "loop"), "inheriting from oneself is a loop");

        _cleanup_profile_ acs_profile *d = NULL;
        r = parse("[profile]\ninherit = c0\n", &dir, &d, &err);
        ok(r == -EINVAL && !d, "a chain deeper than 8 is refused");
        has_msg(err, "expected at most 8 levels of inheritance", "  message names the limit");

        _cleanup_profile_ acs_profile *m = NULL;
        r = parse("\n[profile]\ninherit = nosuch\n", &dir, &m, &err);
        ok(r == -ENOENT || r == -EINVAL, "a missing parent is an error");
        has_msg(err, "test.ini:3: [profile] inherit: profile 'nosuch' not found; searched mem/",
                "  message names the child's line and what was searched");

        _cleanup_profile_ acs_profile *b = NULL;
        r = parse("[profile]\ninherit = broken\n", &dir, &b, &err);
        ok(r == -EINVAL, "a broken parent is an error");
        has_msg(err, "mem/broken.ini:4: [limits] timeout: expected seconds",
                "  message names the parent's file and line");

        _cleanup_profile_ acs_profile *n = NULL;
        r = parse("[profile]\ninherit = base\n", NULL, &n, &err);
        ok(r == -EINVAL, "inherit without a reader is an error, not a crash");

        _cleanup_profile_ acs_profile *rel = NULL;
        memset(&err, 0, sizeof err);
        r = acs_profile_parse("[profile]\ninherit = ../base.ini\n", "dir/child.ini", NULL,
                              mem_reader, &dir, &rel, &err);
        is_str(dir.last_ref, "dir/../base.ini", "a relative PATH is taken from the child's directory");
        ok(r == 0 && rel && rel->timeout == 4, "  and read from there");
        is_str(rel ? rel->name : NULL, "child", "a profile's name defaults to its file name");
}

/* ---- helpers ------------------------------------------------------------------------------------ */

static void test_edit_distance(void)
{
        is_int(acs_edit_distance("timeout", "timeout"), 0, "distance to itself 0");
        is_int(acs_edit_distance("timout", "timeout"), 1, "deletion 1");
        is_int(acs_edit_distance("memroy", "memory"), 1, "transposition 1");
        is_int(acs_edit_distance("", "abc"), 3, "from empty");
        is_int(acs_edit_distance("cpu", "net"), 3, "all different");
}

/* ---- shipped profiles and man page -------------------------------------------------------------- */

static char *slurp(const char *path)
{
        _cleanup_close_ int fd = open(path, O_RDONLY | O_CLOEXEC);
        struct stat st;
        if (fd < 0 || fstat(fd, &st) < 0)
                return NULL;
        char *buf = calloc(1, (size_t)st.st_size + 1);
        if (buf && read(fd, buf, (size_t)st.st_size) != st.st_size) {
                free(buf);
                return NULL;
        }
        return buf;
}

static int dir_reader(void *userdata, const char *name, char **ret_text, char **ret_path,
                      acs_error *err)
{
        const char *dir = userdata;
        if (asprintf(ret_path, "%s/%s.ini", dir, name) < 0)
                return -ENOMEM;
        if (!(*ret_text = slurp(*ret_path)))
                return acs_error_set(err, -ENOENT, "profile", "%s: cannot read", *ret_path);
        return 0;
}

static acs_profile *shipped(const char *srcdir, const char *name)
{
        char dir[4096];
        _cleanup_free_ char *path = NULL, *text = NULL;
        acs_profile *p = NULL;
        acs_error err = { 0 };

        snprintf(dir, sizeof dir, "%s/profiles", srcdir);
        if (dir_reader(dir, name, &text, &path, &err) < 0 ||
            acs_profile_parse(text, path, name, dir_reader, dir, &p, &err) < 0)
                diag("%s", err.msg);
        return p;
}

static void test_shipped(void)
{
        const char *srcdir = getenv("ACS_SRCDIR");
        if (!srcdir) {
                skip("shipped profiles: ACS_SRCDIR not set");
                return;
        }
        /* processes, network, native code, code loading, reflection: never in default */
        static const char *const forbidden[] = {
                "os", "sys", "subprocess", "socket", "ctypes", "importlib",
                "pickle", "marshal", "inspect", "gc", "types", "builtins", "threading",
                "multiprocessing", "signal", "asyncio", "codecs", "posix",
                "pty", "fcntl", "mmap", "resource", "select", "ssl", "http", "urllib",
                "xml", "tokenize", "linecache", "traceback", "warnings",
                "platform", "sysconfig", "uuid", "code", "timeit", "runpy", "pkgutil", "zipimport",
                "logging", "shelve", "dbm", "sqlite3", "webbrowser", "pdb", "copyreg", "weakref",
                "_thread", "_posixsubprocess", "posixpath", "fileinput", "locale", "site", NULL,
        };
        /* file work: default has it (issue 13), pure-math does not */
        static const char *const files[] = {
                "io", "pathlib", "shutil", "glob", "tempfile", "csv", "os.path", "zipfile",
                "tarfile", "gzip", "bz2", "lzma", NULL,
        };

        _cleanup_profile_ acs_profile *def = shipped(srcdir, "default");
        _cleanup_profile_ acs_profile *empty = NULL;
        acs_error err;
        ok(def != NULL, "profiles/default.ini parses");
        parse("", NULL, &empty, &err);
        if (def && empty) {
                ok(def->description && *def->description, "default has a description");
                ok(acs_strv_contains(def->allow_imports, "math") &&
                           acs_strv_contains(def->allow_imports, "json"),
                   "default allows math and json");
                for (const char *const *f = forbidden; *f; f++)
                        ok(!acs_strv_contains(def->allow_imports, *f), "default does not allow %s", *f);
                for (const char *const *f = files; *f; f++)
                        ok(acs_strv_contains(def->allow_imports, *f), "default allows %s (files)", *f);
                /* the key table's deny lists, except open: files are default's business */
                bool same = acs_strv_length(def->deny_builtins) + 1 == acs_strv_length(empty->deny_builtins) &&
                            acs_strv_length(def->deny_attributes) == acs_strv_length(empty->deny_attributes);
                for (char **s = empty->deny_builtins; *s; s++)
                        same &= strcmp(*s, "open") == 0 ? !acs_strv_contains(def->deny_builtins, *s)
                                                        : acs_strv_contains(def->deny_builtins, *s);
                for (char **s = empty->deny_attributes; *s; s++)
                        same &= acs_strv_contains(def->deny_attributes, *s);
                ok(same, "default.ini's deny lists are the key table's defaults without open");
                ok(acs_strv_contains(def->ro_bind, "/etc/alternatives") &&
                           acs_strv_contains(def->tmpfs, "/run/home") &&
                           acs_strv_contains(def->env_set, "HOME=/run/home") &&
                           acs_strv_contains(def->env_set, "PYTHONDONTWRITEBYTECODE=1"),
                   "default: /etc/alternatives, HOME on a tmpfs outside the workspace, no bytecode");
                ok(def->scan_mode == ACS_SCAN_ENFORCE && def->net == ACS_NET_NONE &&
                           def->memory == empty->memory && def->timeout == empty->timeout &&
                           strcmp(def->interpreter, ACS_PYTHON) == 0,
                   "default.ini keeps the safe defaults");
        }

        _cleanup_profile_ acs_profile *pm = shipped(srcdir, "pure-math");
        ok(pm != NULL, "profiles/pure-math.ini parses");
        if (pm) {
                ok(pm->description && strstr(pm->description, "Pure computation"),
                   "pure-math has its description");
                for (const char *m = "math\0cmath\0json\0re\0datetime\0statistics\0random\0"
                                     "collections\0itertools\0functools\0fractions\0decimal\0";
                     *m; m += strlen(m) + 1)
                        ok(acs_strv_contains(pm->allow_imports, m), "pure-math allows %s", m);
                for (const char *const *f = forbidden; *f; f++)
                        ok(!acs_strv_contains(pm->allow_imports, *f), "pure-math does not allow %s",
                           *f);
                for (const char *const *f = files; *f; f++)
                        ok(!acs_strv_contains(pm->allow_imports, *f), "pure-math does not allow %s",
                           *f);
                ok(acs_strv_contains(pm->deny_builtins, "open"), "pure-math denies open");
                ok(!acs_strv_contains(pm->allow_imports, "hashlib"), "pure-math narrows default");
                ok(acs_strv_contains(pm->deny_attributes, "get_type_hints") &&
                           acs_strv_contains(pm->deny_attributes, "_os"),
                   "pure-math keeps default's deny_attributes");
                is_int(pm->scan_mode, ACS_SCAN_ENFORCE, "pure-math enforces the scan");
                is_str(pm->inherit, "default", "pure-math inherits default");
        }

        _cleanup_profile_ acs_profile *sh = shipped(srcdir, "shell");
        ok(sh != NULL, "profiles/shell.ini parses");
        if (sh) {
                is_int(sh->scan_mode, ACS_SCAN_OFF, "shell: scan off");
                ok(sh->timeout >= 300 && sh->cpu >= 300, "shell: minutes of wall and CPU time");
                ok(sh->processes >= 256, "shell: hundreds of processes and threads");
                ok(sh->open_files >= 1024, "shell: 1024+ open files");
                is_int(sh->memory_rlimit, ACS_MEMRL_FALLBACK, "shell: memory by cgroup where delegated");
                ok(acs_strv_contains(sh->ro_bind, "/usr"), "shell: /usr read-only");
                is_int(sh->net, ACS_NET_NONE, "shell: no network");
        }

        _cleanup_profile_ acs_profile *da = shipped(srcdir, "data");
        ok(da != NULL, "profiles/data.ini parses");
        if (da) {
                ok(acs_strv_contains(da->allow_imports, "numpy.*") && acs_strv_contains(da->allow_imports, "pandas.*") &&
                           acs_strv_contains(da->allow_imports, "matplotlib.*"),
                   "data allows numpy, pandas, matplotlib and their submodules");
                bool no_S = true;
                for (char **f = da->python_flags; f && *f; f++)
                        no_S &= strcmp(*f, "-S") != 0;
                ok(no_S, "data: no -S, so dist-packages is on sys.path");
                ok(acs_strv_contains(da->deny_members, "numpy.ctypeslib") &&
                           acs_strv_contains(da->deny_members, "pandas.read_pickle"),
                   "data denies native code and pickle loading by name");
                for (const char *const *f = forbidden; *f; f++)
                        ok(!acs_strv_contains(da->allow_imports, *f), "data does not allow %s", *f);
        }

        _cleanup_profile_ acs_profile *un = shipped(srcdir, "unsafe-python");
        ok(un != NULL, "profiles/unsafe-python.ini parses");
        if (un) {
                is_int(un->scan_mode, ACS_SCAN_OFF, "unsafe-python: scan off");
                is_int(un->net, ACS_NET_NONE, "unsafe-python: still no network");
                is_int(un->memory, 256 << 20, "unsafe-python: default limits");
                ok(un->description && *un->description, "unsafe-python has a description");
        }
}

/* A name that reaches the loader from outside (an MCP client) is a name, never a path. */
static void test_load_name(void)
{
        static const struct {
                const char *s;
                bool valid;
        } v[] = {
                { "default", true },     { "pure-math", true },    { "a.b_c-9", true },   { "X", true },
                { "evil.ini", false },   { "a.INI", true },        { "./evil", false },   { "../x", false },
                { "/etc/x", false },     { "a/b", false },         { "", false },         { ".", false },
                { "..", false },         { ".hidden", false },     { "-x", false },       { "_x", false },
                { "a b", false },        { "a\nb", false },        { "\xc3\xa9", false }, { "ini", true },
                { ".ini", false },       { "x.ini.bak", true },
                { "a123456789012345678901234567890123456789012345678901234567890123", true }, /* 64 */
                { "a1234567890123456789012345678901234567890123456789012345678901234", false },
        };
        const char *srcdir = getenv("ACS_SRCDIR");
        char dir[] = "/tmp/acs-test-profile.XXXXXX", cwd[4096], *path = NULL;
        acs_profile *p = NULL;
        acs_error err = { 0 };
        FILE *f;

        for (size_t i = 0; i < ELEMENTSOF(v); i++)
                ok(acs_profile_name_valid(v[i].s) == v[i].valid, "name '%s' %s", v[i].s, v[i].valid ? "valid" : "refused");
        is_int(acs_profile_load_name("evil.ini", &p, &err), -EINVAL, "load_name refuses 'evil.ini'");
        ok(strstr(err.msg, "not a profile name") != NULL, "  saying why: %s", err.msg);
        is_int(acs_profile_load_name("/etc/passwd", &p, &err), -EINVAL, "load_name refuses a path");

        if (!srcdir || !getcwd(cwd, sizeof cwd) || !mkdtemp(dir)) {
                skip("load_name from the cwd: no ACS_SRCDIR or temp dir");
                return;
        }
        /* a profile planted in the cwd, and a search path with a relative entry */
        if (asprintf(&path, ".:%s/profiles", srcdir) < 0 || chdir(dir) < 0 || !(f = fopen("evil.ini", "w"))) {
                ok(0, "set up the cwd");
                return;
        }
        fputs("[profile]\ninherit = unsafe-python\n", f);
        fclose(f);
        setenv("ACS_PROFILE_PATH", path, 1);
        is_int(acs_profile_load_name("evil", &p, &err), -ENOENT, "load_name never searches the cwd ('.' on the path)");
        ok(strstr(err.msg, "not found") && !strstr(err.msg, "./evil.ini"), "  not even listed: %s", err.msg);
        is_int(acs_profile_load_name("default", &p, &err), 0, "load_name finds a name on the absolute path");
        ok(p && p->path && p->path[0] == '/' && strcmp(p->name, "default") == 0, "  default, by its absolute path");
        acs_profile_free(p);
        p = NULL;
        /* the operator's own command line keeps reading NAME.ini as a path */
        is_int(acs_profile_load("evil.ini", &p, &err), 0, "acs_profile_load still reads a PATH for the CLI");
        acs_profile_free(p);
        unlink("evil.ini");
        ok(chdir(cwd) == 0, "back to the test's cwd");
        rmdir(dir);
        unsetenv("ACS_PROFILE_PATH");
        free(path);
}

/* profiles --show: the text is a profile that parses to the same values; JSON has every key. */
static void test_show(void)
{
        const char *srcdir = getenv("ACS_SRCDIR");
        if (!srcdir) {
                skip("profiles --show: ACS_SRCDIR not set");
                return;
        }
        static const char *const names[] = { "default", "pure-math", "shell", "data", "unsafe-python" };
        for (size_t i = 0; i < ELEMENTSOF(names); i++) {
                _cleanup_profile_ acs_profile *p = shipped(srcdir, names[i]), *q = NULL;
                if (!p) {
                        ok(0, "%s loads", names[i]);
                        continue;
                }
                _cleanup_free_ char *text = acs_profile_to_text(p), *again = NULL;
                acs_error err = { 0 };
                int r = text ? acs_profile_parse(text, "shown.ini", names[i], NULL, NULL, &q, &err) : -ENOMEM;
                ok(r == 0, "--show %s: the text parses as a profile", names[i]);
                if (r < 0) {
                        diag("%s", err.msg);
                        continue;
                }
                free(q->path);
                q->path = strdup(p->path);
                again = acs_profile_to_text(q);
                ok(again && strcmp(text, again) == 0, "--show %s: and gives the same values", names[i]);
                struct json_object *j = acs_profile_to_json(p), *sec, *v;
                bool all = j != NULL;
                for (size_t k = 0; all && k < acs_profile_n_keys; k++)
                        all = json_object_object_get_ex(j, acs_profile_key_table[k].section, &sec) &&
                              json_object_object_get_ex(sec, acs_profile_key_table[k].key, &v);
                ok(all, "--show %s --json: every key of the table", names[i]);
                json_object_put(j);
        }
}

static void test_man(void)
{
        const char *srcdir = getenv("ACS_SRCDIR");
        char path[4096];
        if (!srcdir) {
                skip("man page: ACS_SRCDIR not set");
                return;
        }
        snprintf(path, sizeof path, "%s/man/acs-launch.profile.5", srcdir);
        _cleanup_free_ char *page = slurp(path);
        char *gen = NULL;
        size_t gen_len = 0;
        FILE *f = open_memstream(&gen, &gen_len);
        ok(page != NULL, "man/acs-launch.profile.5 exists");
        if (!page || !f)
                return;
        acs_profile_write_man_keys(f);
        fclose(f);

        const char *begin = strstr(page, ".\\\" BEGIN KEYS\n");
        const char *end = begin ? strstr(begin, ".\\\" END KEYS\n") : NULL;
        ok(begin && end, "the man page has the generated KEYS block");
        if (begin && end) {
                begin += strlen(".\\\" BEGIN KEYS\n");
                bool same = (size_t)(end - begin) == gen_len && memcmp(begin, gen, gen_len) == 0;
                ok(same, "the man page's KEYS block matches the key table "
                         "(run `make update-profile-man`)");
        }
        for (size_t i = 0; i < acs_profile_n_keys; i++) {
                char needle[128];
                snprintf(needle, sizeof needle, "\\fB%s\\fR = ", acs_profile_key_table[i].key);
                ok(strstr(page, needle), "man page documents %s", acs_profile_key_table[i].key);
        }
        free(gen);
}

int main(int argc, char **argv)
{
        if (argc > 1 && strcmp(argv[1], "--man-keys") == 0) {
                acs_profile_write_man_keys(stdout);
                return 0;
        }
        test_keys();
        test_values();
        test_defaults();
        test_errors();
        test_lists();
        test_inherit();
        test_edit_distance();
        test_shipped();
        test_load_name();
        test_show();
        test_man();
        return tap_done();
}
