/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The worker: one forked process per tools/call. It loads the profile,
 * calls the engine (or the scanner) exactly as the CLI does, and sends the
 * result back to the server over a pipe. Being a separate process is the
 * point: the engine clones a sandbox (no threads may exist in a process that
 * clones; the server has none and the worker inherits none), a crash costs
 * one call, and the server can kill the whole run with one kill(-pgid).
 */
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>

#include <json-c/json.h>

#include "jsonrpc.h"
#include "mcp-policy.h"
#include "mcp-worker.h"
#include "profile.h"
#include "run.h"
#include "scan.h"

static struct json_object *error_result(const char *fmt, ...) _printf_(1, 2);
static struct json_object *error_result(const char *fmt, ...)
{
        char msg[1400];
        va_list ap;

        va_start(ap, fmt);
        vsnprintf(msg, sizeof(msg), fmt, ap);
        va_end(ap);
        return acs_mcp_error_result(msg);
}

static struct json_object *inspect(const acs_profile *p, const acs_mcp_call *c)
{
        acs_scan_result scan = { 0 };
        acs_error err = { 0 };
        struct json_object *r;

        /* In a child under the profile's limits; the code is text, as execute_python's -c. */
        if (acs_scan_bounded(p, c->code, c->code_len, "<string>", true, &scan, &err) < 0)
                return error_result("The scan failed (%s): %s", err.stage, err.msg);
        r = acs_mcp_scan_result(p->name, "<string>", &scan);
        acs_scan_result_done(&scan);
        return r;
}

/*
 * The call's limits, bounded by the operator's: each may only lower what the
 * server's options and profile allow (0 there is no limit). Returns the
 * name of a limit the call would raise, or NULL.
 */
static const char *call_limits(acs_options *ro, const acs_profile *p, const acs_mcp_call *c)
{
        uint64_t cpu = ro->has_cpu ? ro->cpu : p->cpu, mem = ro->has_memory ? ro->memory : p->memory;
        uint64_t procs = ro->has_processes ? ro->processes : p->processes;
        uint64_t files = ro->has_open_files ? ro->open_files : p->open_files;
        if (c->has_cpu && cpu && c->cpu > cpu)
                return "cpu";
        if (c->has_memory && mem && c->memory > mem)
                return "memory";
        if (c->has_processes && c->processes > procs)
                return "processes";
        if (c->has_open_files && c->open_files > files)
                return "open_files";
        if (c->has_cpu) {
                ro->has_cpu = true;
                ro->cpu = c->cpu;
        }
        if (c->has_memory) {
                ro->has_memory = true;
                ro->memory = c->memory;
        }
        if (c->has_processes) {
                ro->has_processes = true;
                ro->processes = c->processes;
        }
        if (c->has_open_files) {
                ro->has_open_files = true;
                ro->open_files = c->open_files;
        }
        return NULL;
}


struct json_object *acs_mcp_execute(const acs_options *o, const acs_mcp_policy *pol, const acs_mcp_call *c,
                                    int cancel_fd)
{
        _cleanup_profile_ acs_profile *p = NULL;
        char *sh_argv[] = { (char *)"/bin/sh", (char *)"-c", c->code, NULL };
        char *no_args[] = { NULL };
        acs_report rep = { 0 };
        acs_error err = { 0 };
        struct json_object *r;
        acs_options ro;
        double timeout_cap;

        if (acs_mcp_call_profile(pol, c, &p, &timeout_cap, &err) < 0)
                return error_result("Cannot load the profile: %s", err.msg);
        if (c->tool == ACS_TOOL_INSPECT)
                return inspect(p, c);

        /* The server's options (workspace, mounts, overrides) with this call's timeout. */
        ro = *o;
        ro.command = c->tool == ACS_TOOL_COMMAND ? ACS_CMD_EXEC : ACS_CMD_RUN;
        if (c->has_timeout) {
                ro.has_timeout = true;
                ro.timeout = c->timeout;
        }
        const char *over = call_limits(&ro, p, c);
        if (over)
                return error_result("\"%s\" may only lower profile %s's limit: ask for at most what "
                                    "`acs-launch profiles --show %s` says",
                                    over, p->name, p->name);
        /* execute_command's cwd and env: the profile's policy still applies (plan.c: a locked env refuses) */
        _cleanup_strv_free_ char **env = NULL;
        if (c->tool == ACS_TOOL_COMMAND && c->env) {
                for (char **e = o->setenv; e && *e; e++)
                        if (acs_strv_push(&env, *e) < 0)
                                return error_result("out of memory");
                for (char **e = c->env; *e; e++)
                        if (acs_strv_push(&env, *e) < 0)
                                return error_result("out of memory");
                ro.setenv = env;
        }
        if (c->tool == ACS_TOOL_COMMAND && c->cwd)
                ro.chdir = c->cwd;
        ro.json = true;
        ro.apply = false;
        ro.patch = NULL;
        ro.keep = NULL;
        ro.report = NULL;
        ro.code = NULL;
        ro.args = NULL;

        acs_run_request req = {
                .kind = c->tool == ACS_TOOL_COMMAND ? ACS_RUN_EXEC : ACS_RUN_CODE,
                .profile = p,
                .opts = &ro,
                .argv = c->tool == ACS_TOOL_COMMAND ? sh_argv : no_args,
                .code = c->tool == ACS_TOOL_COMMAND ? NULL : c->code,
                .code_len = c->tool == ACS_TOOL_COMMAND ? 0 : c->code_len,
                .stdin_fd = -1,
                .stream = false,
                .cancel_fd = cancel_fd,
                /* paths, kinds, sizes and hashes by default: the patch only when asked */
                .no_patch = !c->patch,
        };
        if (acs_run(&req, &rep, &err) < 0) {
                acs_report_done(&rep);
                return error_result("acs-launch could not run it (%s): %s", err.stage, err.msg);
        }
        if (rep.have_files)
                acs_mcp_cut_patch(&rep.files, ACS_MCP_PATCH_CAP);
        /* never lose the whole result to the server's bound: clip the report to fit */
        r = acs_mcp_run_result_fit(&rep, ACS_MCP_MAX_RESULT - 1, pol, timeout_cap);
        acs_report_done(&rep);
        return r;
}

/* Close every fd but 0-2 and the two we keep (inherited pipes of other calls included). */
static void close_others(int a, int b)
{
        int lo = a < b ? a : b, hi = a < b ? b : a;

        if (lo > 3)
                close_range(3, (unsigned)lo - 1, 0);
        if (hi > lo + 1)
                close_range((unsigned)lo + 1, (unsigned)hi - 1, 0);
        close_range((unsigned)hi + 1, ~0U, 0);
}

_noreturn_ void acs_mcp_worker(const acs_options *o, const acs_mcp_policy *pol, const acs_mcp_call *c,
                               int result_fd, int cancel_fd, const sigset_t *mask, pid_t server)
{
        struct sigaction dfl = { .sa_handler = SIG_DFL };
        struct json_object *res;
        char *line;
        int fd;

        (void)setpgid(0, 0);
        sigaction(SIGPIPE, &dfl, NULL);
        sigprocmask(SIG_SETMASK, mask, NULL);
        /* If the server dies, so do we, and with us the sandbox (its own PDEATHSIG). */
        if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0 || getppid() != server)
                _exit(1);

        /* Nothing a run does may reach the protocol stream or read the client's input. */
        fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
        if (fd < 0 || dup2(fd, STDIN_FILENO) < 0 || dup2(STDERR_FILENO, STDOUT_FILENO) < 0)
                _exit(1);
        close_others(result_fd, cancel_fd);

        res = acs_mcp_execute(o, pol, c, cancel_fd);
        line = res ? acs_jrpc_to_line(res) : NULL;
        if (!line)
                _exit(1);
        if (acs_write_all(result_fd, line, strlen(line)) < 0 || acs_write_all(result_fd, "\n", 1) < 0)
                _exit(1);
        _exit(0);
}
