/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The call as the server hands it to a pooled worker (pool.c): every field
 * comes back as it went, code with NUL bytes and non-ASCII included, and
 * a line that is not a call is refused.
 */
#include <stdio.h>
#include <string.h>

#include "../tap.h"
#include "pool.h"

static const struct {
        const char *name;
        acs_mcp_call c;
} cases[] = {
        { "plain python", { .tool = ACS_TOOL_PYTHON, .code = "print(1)", .code_len = 8 } },
        { "timeout and profile",
          { .tool = ACS_TOOL_PYTHON, .code = "x", .code_len = 1, .has_timeout = true, .timeout = 2.5,
            .profile = "pure-math" } },
        { "limits",
          { .tool = ACS_TOOL_PYTHON, .code = "y", .code_len = 1, .has_cpu = true, .cpu = 3, .has_memory = true,
            .memory = 1ull << 40, .has_processes = true, .processes = 7, .has_open_files = true, .open_files = 9 } },
        { "command with NUL and UTF-8", { .tool = ACS_TOOL_COMMAND, .code = "echo \xc3\xa9\0after", .code_len = 13 } },
        { "empty code", { .tool = ACS_TOOL_PYTHON, .code = "", .code_len = 0 } },
        { "write_file, base64", { .tool = ACS_TOOL_WRITE_FILE, .code = "AAE=", .code_len = 4, .path = "d/x.bin",
                                  .base64 = true } },
        { "read_file", { .tool = ACS_TOOL_READ_FILE, .code = "", .code_len = 0, .path = "/workspace/\xc3\xa9.txt" } },
};

int main(void)
{
        for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
                const acs_mcp_call *c = &cases[i].c;
                char *line = NULL;
                acs_mcp_call back = { 0 };
                ok(acs_pool_call_to_line(c, &line) == 0 && line && !strchr(line, '\n'), "%s: one line",
                   cases[i].name);
                ok(line && acs_pool_call_from_line(line, &back) == 0, "%s: read back", cases[i].name);
                ok(back.tool == c->tool && back.code_len == c->code_len && back.code &&
                           memcmp(back.code, c->code, c->code_len) == 0,
                   "%s: tool and code", cases[i].name);
                ok(back.has_timeout == c->has_timeout && back.timeout == c->timeout, "%s: timeout", cases[i].name);
                ok((!back.profile && !c->profile) || (back.profile && c->profile && !strcmp(back.profile, c->profile)),
                   "%s: profile", cases[i].name);
                ok(back.has_cpu == c->has_cpu && back.cpu == c->cpu && back.has_memory == c->has_memory &&
                           back.memory == c->memory && back.has_processes == c->has_processes &&
                           back.processes == c->processes && back.has_open_files == c->has_open_files &&
                           back.open_files == c->open_files,
                   "%s: limits", cases[i].name);
                ok(((!back.path && !c->path) || (back.path && c->path && !strcmp(back.path, c->path))) &&
                           back.base64 == c->base64,
                   "%s: path and encoding", cases[i].name);
                acs_mcp_call_done(&back);
                free(line);
        }
        static const char *const bad[] = { "", "[]", "{}", "{\"tool\":0}", "{\"tool\":0,\"code\":1}", "{\"code\":\"x\"}",
                                           "not json" };
        for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
                acs_mcp_call back = { 0 };
                ok(acs_pool_call_from_line(bad[i], &back) == -EINVAL && !back.code, "refused: %s", bad[i]);
        }
        return tap_done();
}
