/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* `--server`, `--no-server`, `--session` on the command line, and which runs may go to a server. */
#include <string.h>

#include "../tap.h"
#include "cli-server.h"
#include "cli.h"

#define A(...) ((const char *[]){"acs-launch", __VA_ARGS__, NULL})

static int parse(const char **argv, acs_options *o, acs_error *e)
{
        int argc = 0;
        while (argv[argc])
                argc++;
        memset(e, 0, sizeof *e);
        memset(o, 0, sizeof *o);
        return acs_cli_parse(argc, (char *const *)argv, o, e);
}

/* argv -> why it runs cold (a part of the reason), or NULL: it may go to a server */
static const struct {
        const char **argv;
        bool null_or_tty;
        const char *why;
} fit[] = {
        {A("--server", "/s", "-c", "print(1)"), true, NULL},
        {A("--server", "/s", "--json", "-c", "print(1)"), false, NULL}, /* --json: /dev/null anyway */
        {A("--server", "/s", "--stdin", "null", "-c", "print(1)"), false, NULL},
        {A("--server", "/s", "-w", "/tmp", "--timeout", "3", "-q", "-c", "x"), true, NULL},
        {A("--server", "/s", "-p", "pure-math", "-c", "x"), true, NULL},
        {A("--server", "/s", "-c", "print(1)"), false, "stdin is neither"},
        {A("--server", "/s", "--stdin", "pipe", "-c", "x"), true, "--stdin pipe"},
        {A("--server", "/s", "--stdin", "tty", "-c", "x"), true, "--stdin pipe"},
        {A("--server", "/s", "script.py"), true, "only `run -c CODE`"},
        {A("--server", "/s", "-c", "x", "arg"), true, "sys.argv"},
        {A("exec", "--server", "/s", "--", "true"), true, "only `run -c CODE`"},
        {A("--server", "/s", "-w", "/tmp", "--apply", "-c", "x"), true, "--apply"},
        {A("--server", "/s", "--patch", "p", "-c", "x"), true, "--patch"},
        {A("--server", "/s", "--keep", "k", "-c", "x"), true, "--keep"},
        {A("--server", "/s", "--report", "r", "-c", "x"), true, "--report"},
        {A("--server", "/s", "--dry-run", "-c", "x"), true, "--dry-run"},
        {A("--server", "/s", "--ro-bind", "/a", "/b", "-c", "x"), true, "--ro-bind"},
        {A("--server", "/s", "--tmpfs", "/b", "-c", "x"), true, "--ro-bind"},
        {A("--server", "/s", "--setenv", "A", "b", "-c", "x"), true, "--setenv"},
        {A("--server", "/s", "--unsetenv", "A", "-c", "x"), true, "--setenv"},
        {A("--server", "/s", "--chdir", "/tmp", "-c", "x"), true, "--chdir"},
        {A("--server", "/s", "--venv", "/v", "-c", "x"), true, "--venv"},
        {A("--server", "/s", "--memory", "64M", "-c", "x"), true, "limit"},
        {A("--server", "/s", "--cpu", "2", "-c", "x"), true, "limit"},
        {A("--server", "/s", "--processes", "2", "-c", "x"), true, "limit"},
        {A("--server", "/s", "--open-files", "20", "-c", "x"), true, "limit"},
        {A("--server", "/s", "--file-size", "1M", "-c", "x"), true, "limit"},
        {A("--server", "/s", "--max-tokens", "100", "-c", "x"), true, "limit"},
        {A("--server", "/s", "--net", "loopback", "-c", "x"), true, "--net"},
        {A("--server", "/s", "-p", "./mine.ini", "-c", "x"), true, "as a path"},
};

static void test_fit(void)
{
        for (size_t i = 0; i < sizeof fit / sizeof fit[0]; i++) {
                acs_options o;
                acs_error e;
                if (parse(fit[i].argv, &o, &e) < 0) {
                        tap_ok(false, "fit %zu parses: %s", i, e.msg);
                        continue;
                }
                const char *why = acs_cli_server_unfit(&o, fit[i].null_or_tty);
                if (!fit[i].why)
                        tap_ok(why == NULL, "fit %zu: may go to a server (%s)", i, why ? why : "");
                else
                        tap_ok(why && strstr(why, fit[i].why), "fit %zu: cold because '%s' (%s)", i,
                               fit[i].why, why ? why : "(none)");
                acs_options_done(&o);
        }
}

static void test_parse(void)
{
        acs_options o;
        acs_error e;
        tap_ok(parse(A("--server", "/run/s", "-c", "x"), &o, &e) == 0 && o.has_server && o.server &&
                       strcmp(o.server, "/run/s") == 0,
               "--server PATH");
        acs_options_done(&o);
        tap_ok(parse(A("--server", "", "-c", "x"), &o, &e) == 0 && o.has_server && !o.server,
               "--server '': none");
        acs_options_done(&o);
        tap_ok(parse(A("--server", "/s", "--no-server", "-c", "x"), &o, &e) == 0 && o.has_server && !o.server,
               "--no-server after --server: none");
        acs_options_done(&o);
        tap_ok(parse(A("-c", "x"), &o, &e) == 0 && !o.has_server, "no option: $ACS_SERVER decides");
        acs_options_done(&o);
        tap_ok(parse(A("--session", "a.b:c-d_9", "-c", "x"), &o, &e) == 0 && o.session &&
                       strcmp(o.session, "a.b:c-d_9") == 0,
               "--session ID");
        acs_options_done(&o);
        tap_ok(parse(A("--session", "a b", "-c", "x"), &o, &e) < 0 && strstr(e.msg, "not a session id"),
               "--session with a space: usage error");
        tap_ok(parse(A("--session", "", "-c", "x"), &o, &e) < 0, "--session '': usage error");
        tap_ok(parse(A("mcp", "--server", "/s"), &o, &e) < 0, "--server is not an mcp option");
        tap_ok(acs_cli_session_id_valid("x") && !acs_cli_session_id_valid("x/y") &&
                       !acs_cli_session_id_valid(NULL),
               "session ids");
}

int main(void)
{
        test_fit();
        test_parse();
        return tap_done();
}
