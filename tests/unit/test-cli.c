/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Table-driven tests of the pure argv parser. */
#include <errno.h>
#include <string.h>

#include "../tap.h"
#include "cli.h"
#include "profile.h"

#define A(...) ((const char *[]){ "acs-launch", __VA_ARGS__, NULL })

static int parse(const char **argv, acs_options *o, acs_error *e)
{
        int argc = 0;
        while (argv[argc])
                argc++;
        memset(e, 0, sizeof *e);
        return acs_cli_parse(argc, (char *const *)argv, o, e);
}

static const struct {
        const char **argv;
        int ok;
        acs_command cmd;
        const char *err_part;
} table[] = {
        { A("--profile", "pure-math", "--", "code.py"), 1, ACS_CMD_RUN, NULL },
        { A("code.py", "--profile", "x"), 1, ACS_CMD_RUN, NULL }, /* after the script: its args */
        { A("-c", "print(1)", "a", "b"), 1, ACS_CMD_RUN, NULL },
        { A("exec", "--", "ls", "-l"), 1, ACS_CMD_EXEC, NULL },
        { A("exec"), 0, ACS_CMD_EXEC, "missing COMMAND" },
        { A("check", "-"), 1, ACS_CMD_CHECK, NULL },
        { A("check", "a", "b"), 0, ACS_CMD_CHECK, "one FILE" },
        { A("mcp", "--max-concurrency", "4"), 1, ACS_CMD_MCP, NULL },
        { A("mcp", "--max-concurrency", "0"), 0, ACS_CMD_MCP, "from 1 to 1024, got '0'" },
        { A("mcp", "--allow-profile", "unsafe-python", "--allow-profile", "pure-math", "--max-timeout", "30"), 1,
          ACS_CMD_MCP, NULL },
        { A("mcp", "--allow-profile", "evil.ini"), 0, ACS_CMD_MCP, "expected a profile name" },
        { A("mcp", "--allow-profile", "./evil"), 0, ACS_CMD_MCP, "got './evil'" },
        { A("mcp", "--allow-profile", "/etc/acs/x"), 0, ACS_CMD_MCP, "no '/'" },
        { A("mcp", "--allow-profile", ""), 0, ACS_CMD_MCP, "expected a profile name" },
        { A("mcp", "--max-timeout", "0"), 0, ACS_CMD_MCP, "expected seconds > 0" },
        { A("mcp", "--max-timeout", "soon"), 0, ACS_CMD_MCP, "--max-timeout" },
        { A("--allow-profile", "x", "x.py"), 0, ACS_CMD_RUN, "does not apply" },
        { A("exec", "--max-timeout", "5", "--", "ls"), 0, ACS_CMD_EXEC, "does not apply" },
        { A("--bogus", "x.py"), 0, ACS_CMD_RUN, "unknown option '--bogus'" },
        { A("--timeout"), 0, ACS_CMD_RUN, "needs a value" },
        { A("--timeout", "abc", "x.py"), 0, ACS_CMD_RUN, "--timeout: expected seconds such as 5 or 0.5 (decimal digits, at most 1000000000), 0 for none, got 'abc'" },
        { A("--timeout", "-1", "x.py"), 0, ACS_CMD_RUN, "got '-1'" },
        { A("--memory", "12Q", "x.py"), 0, ACS_CMD_RUN, "got '12Q'" },
        { A("--net", "wifi", "x.py"), 0, ACS_CMD_RUN, "expected one of none | loopback, got 'wifi'" },
        { A("--ro-bind", "/a"), 0, ACS_CMD_RUN, "two values" },
        { A("--apply", "x.py"), 0, ACS_CMD_RUN, "--apply needs --workspace" },
        { ((const char *[]){ "acs-launch", NULL }), 0, ACS_CMD_RUN, "nothing to run" },
        { A("--version"), 1, ACS_CMD_VERSION, NULL },
        { A("-h"), 1, ACS_CMD_HELP, NULL },
        { A("profiles", "extra"), 0, ACS_CMD_PROFILES, "unexpected argument" },
        { A("check", "--max-concurrency", "2", "x"), 0, ACS_CMD_CHECK, "does not apply" },
        { A("apply", "kept"), 0, ACS_CMD_APPLY, "--workspace" },
        { A("--json", "--patch", "-", "x.py"), 0, ACS_CMD_RUN, "--json owns stdout" },
        { A("apply", "kept", "--workspace", "w"), 1, ACS_CMD_APPLY, NULL }, /* as in the docs */
        { A("check", "f.py", "--json"), 1, ACS_CMD_CHECK, NULL },
        { A("apply", "--workspace", "w", "kept"), 1, ACS_CMD_APPLY, NULL },
        /* values: the profile key's parser and range (issue 12 item 9) */
        { A("--memory", "1", "x.py"), 0, ACS_CMD_RUN, "--memory: expected a size such as 64M (K, M, G suffixes) of at least 16M, or 0 for none, got '1'" },
        { A("--memory", "15M", "x.py"), 0, ACS_CMD_RUN, "at least 16M" },
        { A("--memory", "16M", "x.py"), 1, ACS_CMD_RUN, NULL },
        { A("--memory", "0", "x.py"), 1, ACS_CMD_RUN, NULL },
        { A("--memory", " 64M", "x.py"), 0, ACS_CMD_RUN, "at least 16M" },
        { A("--max-tokens", "0", "x.py"), 0, ACS_CMD_RUN, "--max-tokens: expected a whole number from 1 to 4194304, got '0'" },
        { A("--max-tokens", "99999999999", "x.py"), 0, ACS_CMD_RUN, "from 1 to 4194304" },
        { A("--max-tokens", "0x10", "x.py"), 0, ACS_CMD_RUN, "from 1 to 4194304" },
        { A("--max-tokens", "4194304", "x.py"), 1, ACS_CMD_RUN, NULL },
        { A("--timeout", "0x10", "x.py"), 0, ACS_CMD_RUN, "--timeout: expected seconds such as 5 or 0.5 (decimal digits" },
        { A("--timeout", "1e3", "x.py"), 0, ACS_CMD_RUN, "(decimal digits" },
        { A("--timeout", "1e300", "x.py"), 0, ACS_CMD_RUN, "at most 1000000000" },
        { A("--timeout", "99999999999", "x.py"), 0, ACS_CMD_RUN, "at most 1000000000" },
        { A("--timeout", " 5", "x.py"), 0, ACS_CMD_RUN, "(decimal digits" },
        { A("--timeout", "inf", "x.py"), 0, ACS_CMD_RUN, "(decimal digits" },
        { A("--timeout", ".", "x.py"), 0, ACS_CMD_RUN, "(decimal digits" },
        { A("--timeout", "1000000000", "x.py"), 1, ACS_CMD_RUN, NULL },
        { A("--timeout", ".5", "x.py"), 1, ACS_CMD_RUN, NULL },
        { A("--net", "host", "x.py"), 0, ACS_CMD_RUN, "--net: expected one of none | loopback, got 'host'" },
        { A("--tmpfs", "relative", "x.py"), 0, ACS_CMD_RUN, "--tmpfs: the destination 'relative' must be an absolute path without '..'" },
        { A("--tmpfs", "/a/../etc", "x.py"), 0, ACS_CMD_RUN, "without '..'" },
        { A("--bind", "/x", "rel", "x.py"), 0, ACS_CMD_RUN, "--bind: the destination 'rel'" },
        { A("--ro-bind", "/usr", "/usr/..", "x.py"), 0, ACS_CMD_RUN, "--ro-bind: the destination '/usr/..'" },
        { A("--ro-bind", "../host", "/h", "x.py"), 1, ACS_CMD_RUN, NULL }, /* SRC is a host path */
        { A("mcp", "--max-concurrency", "0x4"), 0, ACS_CMD_MCP, "from 1 to 1024" },
        /* did you mean */
        { A("--timout", "1", "x.py"), 0, ACS_CMD_RUN, "unknown option '--timout'; did you mean '--timeout'?" },
        { A("--jsno", "x.py"), 0, ACS_CMD_RUN, "did you mean '--json'?" },
        { A("-json", "x.py"), 0, ACS_CMD_RUN, "did you mean '--json'?" },
        { A("--work-space=/w", "x.py"), 0, ACS_CMD_RUN, "did you mean '--workspace'?" },
        { A("--zzzzzzzz", "x.py"), 0, ACS_CMD_RUN, "unknown option '--zzzzzzzz' (see acs-launch --help)" },
        { A("check", "--net", "none"), 0, ACS_CMD_CHECK, "does not apply to check (see acs-launch check --help)" },
        /* help */
        { A("help", "nope"), 0, ACS_CMD_HELP, "no subcommand 'nope'" },
        { A("--stdin", "bogus", "x.py"), 0, ACS_CMD_RUN, "expected 'auto', 'null', 'pipe' or 'tty', got 'bogus'" },
        { A("exec", "--stdin=tty", "--", "sh"), 1, ACS_CMD_EXEC, NULL },
        { A("check", "--stdin", "null", "x"), 0, ACS_CMD_CHECK, "does not apply" },
        /* the seed documents' command lines */
        { A("run", "script.py"), 1, ACS_CMD_RUN, NULL },
        { A("run", "--code", "import math; print(math.factorial(20))", "--timeout", "2.0"), 1, ACS_CMD_RUN, NULL },
        { A("check", "untrusted_agent_code.py"), 1, ACS_CMD_CHECK, NULL },
        { A("benchmark"), 1, ACS_CMD_BENCH, NULL },
        { A("benchmark", "--json"), 1, ACS_CMD_BENCH, NULL },
        { A("mcp"), 1, ACS_CMD_MCP, NULL },
        { A("exec", "--code", "x", "--", "ls"), 0, ACS_CMD_EXEC, "option '--code' does not apply to exec" },
        { A("--code"), 0, ACS_CMD_RUN, "needs a value" },
        { A("--cod", "x"), 0, ACS_CMD_RUN, "did you mean '--code'" },
        { A("exec", "--dry-run", "--", "ls"), 1, ACS_CMD_EXEC, NULL },
        { A("--dry-run", "-c", "pass"), 1, ACS_CMD_RUN, NULL },
        { A("check", "--dry-run", "x"), 0, ACS_CMD_CHECK, "does not apply" },
        { A("mcp", "--dry-run"), 0, ACS_CMD_MCP, "does not apply" },
        { A("mcp", "--http", "8080"), 1, ACS_CMD_MCP, NULL },
        { A("mcp", "--http", "[::1]:8080", "--http-token-file", "t"), 1, ACS_CMD_MCP, NULL },
        { A("mcp", "--http", "localhost:8080"), 0, ACS_CMD_MCP, "expected ADDR:PORT" },
        { A("mcp", "--http", "70000"), 0, ACS_CMD_MCP, "expected ADDR:PORT" },
        { A("mcp", "--http-token-file", "t"), 0, ACS_CMD_MCP, "goes with --http" },
        { A("--http", "8080", "x.py"), 0, ACS_CMD_RUN, "does not apply" },
};

/* acs_error_text: never strerror(0)'s "Success" for a failure */
static void test_error_text(void)
{
        acs_error e = { 0 };
        ok(strcmp(acs_error_text(&e, -ENOMEM), strerror(ENOMEM)) == 0,
           "a bare -ENOMEM with an empty record says what failed");
        ok(strstr(acs_error_text(&e, 0), "Success") == NULL && acs_error_text(&e, 0)[0],
           "an empty record and no errno: not \"Success\", not empty");
        acs_error_set(&e, -EPERM, "x", "refused here");
        is_str(acs_error_text(&e, -ENOMEM), "refused here", "the record's own message first");
        e.msg[0] = '\0';
        ok(strcmp(acs_error_text(&e, -ENOMEM), strerror(EPERM)) == 0, "then the record's errno, then the step's");
}

int main(void)
{
        test_error_text();
        for (size_t i = 0; i < ELEMENTSOF(table); i++) {
                acs_options o;
                acs_error e;
                int r = parse(table[i].argv, &o, &e);
                char name[256];
                size_t n = 0;
                for (const char **a = table[i].argv + 1; *a && n < sizeof name - 40; a++)
                        n += (size_t)snprintf(name + n, sizeof name - n, "%s ", *a);
                if (table[i].ok) {
                        ok(r == 0 && o.command == table[i].cmd, "accepts: %s", name);
                        if (r == 0)
                                acs_options_done(&o);
                } else {
                        ok(r < 0, "rejects: %s", name);
                        if (table[i].err_part)
                                ok(strstr(e.msg, table[i].err_part) != NULL, "message for '%s' says '%s' (got '%s')",
                                   name, table[i].err_part, e.msg);
                }
        }

        /* values land where they should */
        acs_options o;
        acs_error e;
        int r = parse(A("-p", "pure-math", "-w", "/ws", "--timeout", "1.5", "--memory", "64M",
                        "--max-tokens", "500", "--net", "loopback", "--ro-bind", "/a", "/b", "--bind",
                        "/c", "/d", "--tmpfs", "/e", "--setenv", "K", "V", "--unsetenv", "U", "--chdir",
                        "/w", "--patch", "out.diff", "--keep", "/k", "--json", "--report", "r.json", "-vv",
                        "--", "s.py", "x", "--y"),
                  &o, &e);
        is_int(r, 0, "full option set parses");
        if (r < 0) {
                diag("%s", e.msg);
                return tap_done();
        }
        is_str(o.profile, "pure-math", "profile");
        is_str(o.workspace, "/ws", "workspace");
        ok(o.has_timeout && o.timeout == 1.5, "timeout 1.5");
        ok(o.has_memory && o.memory == 64ull << 20, "memory 64M");
        ok(o.has_max_tokens && o.max_tokens == 500, "max tokens");
        ok(o.has_net && o.net == ACS_NET_LOOPBACK, "net loopback");
        is_int(o.n_mounts, 3, "three mounts");
        ok(o.mounts[0].kind == ACS_MOUNT_RO_BIND && !strcmp(o.mounts[0].src, "/a") && !strcmp(o.mounts[0].dest, "/b"), "ro-bind src dest");
        ok(o.mounts[2].kind == ACS_MOUNT_TMPFS && !o.mounts[2].src, "tmpfs");
        is_str(o.setenv ? o.setenv[0] : NULL, "K=V", "setenv");
        is_str(o.unsetenv ? o.unsetenv[0] : NULL, "U", "unsetenv");
        is_str(o.patch, "out.diff", "patch file");
        ok(o.json && o.report && o.verbose == 2, "json, report, -vv");
        is_int(acs_strv_length(o.args), 3, "script and its args");
        is_str(o.args[2], "--y", "script args are not options");
        acs_options_done(&o);

        r = parse(A("-c", "print(1)", "-x"), &o, &e);
        ok(r == 0 && !strcmp(o.code, "print(1)") && o.args && !strcmp(o.args[0], "-x"), "-c CODE then args");
        acs_options_done(&o);
        /* --code is an option like the others: the seed puts --timeout after it */
        r = parse(A("run", "--code", "print(2)", "--timeout", "2.0"), &o, &e);
        ok(r == 0 && o.code && !strcmp(o.code, "print(2)") && acs_strv_length(o.args) == 0 && o.has_timeout &&
                   o.timeout == 2,
           "run --code CODE --timeout 2.0: the timeout is the launcher's");
        acs_options_done(&o);
        r = parse(A("--code", "print(2)", "--json", "--", "--timeout", "x"), &o, &e);
        ok(r == 0 && o.json && acs_strv_length(o.args) == 2 && !strcmp(o.args[0], "--timeout"),
           "--code CODE: the program's arguments after '--'");
        acs_options_done(&o);
        r = parse(A("-c", "print(2)", "--timeout", "2.0"), &o, &e);
        ok(r == 0 && acs_strv_length(o.args) == 2 && !o.has_timeout, "-c CODE: later words stay the program's");
        acs_options_done(&o);
        r = parse(A("--timeout", "2.0", "--code=print(3)", "a"), &o, &e);
        ok(r == 0 && o.code && !strcmp(o.code, "print(3)") && o.has_timeout && o.timeout == 2 && o.args &&
                   !strcmp(o.args[0], "a"),
           "--timeout before --code=CODE");
        acs_options_done(&o);
        static const struct {
                const char *word;
                acs_stdin_mode mode;
        } stdin_modes[] = { { "auto", ACS_STDIN_AUTO }, { "null", ACS_STDIN_NULL },
                            { "pipe", ACS_STDIN_PIPE }, { "tty", ACS_STDIN_TTY } };
        r = parse(A("x.py"), &o, &e);
        ok(r == 0 && o.stdin_mode == ACS_STDIN_AUTO, "--stdin defaults to auto");
        acs_options_done(&o);
        for (size_t i = 0; i < ELEMENTSOF(stdin_modes); i++) {
                r = parse(A("--stdin", stdin_modes[i].word, "x.py"), &o, &e);
                ok(r == 0 && o.stdin_mode == stdin_modes[i].mode, "--stdin %s", stdin_modes[i].word);
                acs_options_done(&o);
        }
        r = parse(A("--timeout=2", "--profile=shell", "s.py"), &o, &e);
        ok(r == 0 && o.timeout == 2 && !strcmp(o.profile, "shell"), "--opt=value form");
        acs_options_done(&o);
        r = parse(A("mcp", "--allow-profile", "a", "--allow-profile=b", "--allow-profile", "a", "--max-timeout", "2.5"),
                  &o, &e);
        ok(r == 0 && acs_strv_length(o.allow_profiles) == 2 && !strcmp(o.allow_profiles[0], "a") &&
                   !strcmp(o.allow_profiles[1], "b") && o.max_timeout == 2.5,
           "mcp: --allow-profile repeats (once per name), --max-timeout");
        acs_options_done(&o);

        /* per-subcommand help */
        const struct {
                const char **argv;
                acs_command topic;
        } helps[] = {
                { A("--help"), ACS_CMD_HELP },           { A("-h", "x.py"), ACS_CMD_HELP },
                { A("help"), ACS_CMD_HELP },             { A("run", "--help"), ACS_CMD_RUN },
                { A("exec", "-h"), ACS_CMD_EXEC },        { A("check", "--help"), ACS_CMD_CHECK },
                { A("mcp", "--help"), ACS_CMD_MCP },      { A("apply", "--help"), ACS_CMD_APPLY },
                { A("profiles", "--help"), ACS_CMD_PROFILES }, { A("doctor", "-h"), ACS_CMD_DOCTOR },
                { A("bench", "--help"), ACS_CMD_BENCH },  { A("help", "exec"), ACS_CMD_EXEC },
                { A("help", "mcp"), ACS_CMD_MCP },        { A("benchmark", "--help"), ACS_CMD_BENCH },
                { A("help", "benchmark"), ACS_CMD_BENCH },
        };
        for (size_t i = 0; i < ELEMENTSOF(helps); i++) {
                r = parse(helps[i].argv, &o, &e);
                ok(r == 0 && o.command == ACS_CMD_HELP && o.help_topic == helps[i].topic,
                   "help topic of '%s %s' is %d", helps[i].argv[1], helps[i].argv[2] ? helps[i].argv[2] : "",
                   (int)helps[i].topic);
                if (r == 0)
                        acs_options_done(&o);
        }

        /* --json is found also when parsing fails, and only where it is an option */
        const struct {
                const char **argv;
                bool want;
        } jsons[] = {
                { A("--json", "--memory", "1", "x.py"), true },
                { A("--memory", "1", "--json", "x.py"), true },
                { A("--bogus", "--json", "x.py"), true },
                { A("--timeout=3", "--json", "x.py"), true },
                { A("check", "f.py", "--json"), true },
                { A("exec", "--json", "--", "ls"), true },
                { A("--setenv", "--json", "v", "x.py"), false },
                { A("--bind", "/a", "--json", "x.py"), false },
                { A("x.py", "--json"), false },
                { A("-c", "--json"), false },
                { A("--code", "--json"), false },
                { A("--code=x", "--json"), true },
                { A("--code", "x", "--json"), true },
                { A("benchmark", "--json"), true },
                { A("--", "--json"), false },
                { A("exec", "--", "ls", "--json"), false },
        };
        for (size_t i = 0; i < ELEMENTSOF(jsons); i++) {
                int argc = 0;
                while (jsons[i].argv[argc])
                        argc++;
                ok(acs_cli_json_requested(argc, (char *const *)jsons[i].argv) == jsons[i].want,
                   "json requested: %s %s %s -> %d", jsons[i].argv[1], jsons[i].argv[2] ? jsons[i].argv[2] : "",
                   jsons[i].argv[2] && jsons[i].argv[3] ? jsons[i].argv[3] : "", jsons[i].want);
        }
        /* every topic has its own usage text, and the overview lists the subcommands */
        acs_command topics[] = { ACS_CMD_RUN, ACS_CMD_EXEC, ACS_CMD_CHECK, ACS_CMD_MCP, ACS_CMD_APPLY,
                                 ACS_CMD_PROFILES, ACS_CMD_DOCTOR, ACS_CMD_BENCH };
        const char *words[] = { "acs-launch [run]", "acs-launch exec", "acs-launch check", "acs-launch mcp",
                                "acs-launch apply", "acs-launch profiles", "acs-launch doctor", "acs-launch bench" };
        for (size_t i = 0; i < ELEMENTSOF(topics); i++) {
                char *text = NULL;
                size_t len = 0;
                FILE *f = open_memstream(&text, &len);
                acs_cli_usage(f, topics[i]);
                fclose(f);
                ok(text && strncmp(text, "Usage: ", 7) == 0 && strstr(text, words[i]), "usage of %s", words[i]);
                free(text);
        }

        /* the shared parsers */
        uint64_t v;
        ok(acs_parse_size("1K", &v) == 0 && v == 1024, "size 1K");
        ok(acs_parse_size("2G", &v) == 0 && v == 2ull << 30, "size 2G");
        ok(acs_parse_size("10MiB", &v) == 0 && v == 10ull << 20, "size 10MiB");
        ok(acs_parse_size("", &v) < 0 && acs_parse_size("-1", &v) < 0 && acs_parse_size("1X", &v) < 0, "bad sizes");
        ok(acs_parse_size("99999999999999999G", &v) < 0, "size overflow");
        double d;
        ok(acs_parse_seconds("0.25", &d) == 0 && d == 0.25, "seconds 0.25");
        ok(acs_parse_seconds("3s", &d) == 0 && d == 3, "seconds 3s");
        ok(acs_parse_seconds("nan", &d) < 0 && acs_parse_seconds("inf", &d) < 0, "non-finite seconds");
        ok(acs_parse_seconds("0x10", &d) < 0 && acs_parse_seconds("1e2", &d) < 0 && acs_parse_seconds("+1", &d) < 0 &&
           acs_parse_seconds("", &d) < 0 && acs_parse_seconds("1.5.", &d) < 0 && acs_parse_seconds("5ss", &d) < 0,
           "seconds: decimal digits and one '.' only");
        ok(acs_parse_seconds("1e300", &d) < 0 && acs_parse_seconds("1000000000.5", &d) < 0 &&
           acs_parse_seconds("1000000000", &d) == 0, "seconds: at most 1e9");
        ok(acs_parse_seconds("2.", &d) == 0 && d == 2 && acs_parse_seconds(".25s", &d) == 0 && d == 0.25,
           "seconds: '2.' and '.25s'");
        ok(acs_parse_uint(" 5", &v) < 0 && acs_parse_uint("0x5", &v) < 0 && acs_parse_uint("+5", &v) < 0 &&
           acs_parse_size(" 5M", &v) < 0, "numbers: digits first");
        return tap_done();
}
