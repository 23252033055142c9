/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Table-driven tests of the pure argv parser. */
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
        { A("mcp", "--max-concurrency", "0"), 0, ACS_CMD_MCP, "invalid value" },
        { A("--bogus", "x.py"), 0, ACS_CMD_RUN, "unknown option '--bogus'" },
        { A("--timeout"), 0, ACS_CMD_RUN, "needs a value" },
        { A("--timeout", "abc", "x.py"), 0, ACS_CMD_RUN, "invalid value 'abc'" },
        { A("--timeout", "-1", "x.py"), 0, ACS_CMD_RUN, "invalid value" },
        { A("--memory", "12Q", "x.py"), 0, ACS_CMD_RUN, "invalid value" },
        { A("--net", "wifi", "x.py"), 0, ACS_CMD_RUN, "expected 'none' or 'loopback'" },
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
        { A("--stdin", "bogus", "x.py"), 0, ACS_CMD_RUN, "expected 'auto', 'null', 'pipe' or 'tty', got 'bogus'" },
        { A("exec", "--stdin=tty", "--", "sh"), 1, ACS_CMD_EXEC, NULL },
        { A("check", "--stdin", "null", "x"), 0, ACS_CMD_CHECK, "does not apply" },
};

int main(void)
{
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
        return tap_done();
}
