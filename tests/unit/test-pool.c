/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The call as the server hands it to a pooled worker (pool.c): a frame,
 * one JSON header line and the code's bytes as they are. Every field comes
 * back as it went, code with NUL bytes, newlines, non-ASCII and invalid
 * UTF-8 included; a frame read in pieces says how long it is and is not
 * taken before it is whole; two frames in a row are two calls; a header
 * that is not a call is refused.
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

static void check_same(const acs_mcp_call *c, const acs_mcp_call *back, const char *name)
{
        ok(back->tool == c->tool && back->code_len == c->code_len && back->code &&
                   memcmp(back->code, c->code, c->code_len) == 0 && back->code[back->code_len] == '\0',
           "%s: tool and code", name);
        ok(back->has_timeout == c->has_timeout && back->timeout == c->timeout, "%s: timeout", name);
        ok((!back->profile && !c->profile) || (back->profile && c->profile && !strcmp(back->profile, c->profile)),
           "%s: profile", name);
        ok(back->has_cpu == c->has_cpu && back->cpu == c->cpu && back->has_memory == c->has_memory &&
                   back->memory == c->memory && back->has_processes == c->has_processes &&
                   back->processes == c->processes && back->has_open_files == c->has_open_files &&
                   back->open_files == c->open_files,
           "%s: limits", name);
        ok(((!back->path && !c->path) || (back->path && c->path && !strcmp(back->path, c->path))) &&
                   back->base64 == c->base64,
           "%s: path and encoding", name);
}

int main(void)
{
        for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
                const acs_mcp_call *c = &cases[i].c;
                char *f = NULL;
                size_t len = 0, used = 7;
                acs_mcp_call back = { 0 };
                ok(acs_pool_call_to_frame(c, NULL, &f, &len) == 0 && f && len > c->code_len &&
                           memchr(f, '\n', len) == f + len - c->code_len - 1,
                   "%s: one header line, then the code", cases[i].name);
                ok(f && acs_pool_call_from_frame(f, len, &back, &used) == 1 && used == len, "%s: read back",
                   cases[i].name);
                check_same(c, &back, cases[i].name);
                acs_mcp_call_done(&back);
                free(f);
        }

        /* 2 MiB of every byte value, newlines and NULs included: read in pieces as a pipe gives them */
        size_t big = 2u << 20;
        char *code = malloc(big);
        for (size_t i = 0; i < big; i++)
                code[i] = (char)(i * 131 + i / 7);
        acs_mcp_call c = { .tool = ACS_TOOL_WRITE_FILE, .code = code, .code_len = big, .path = "out.bin" };
        char *f = NULL;
        size_t len = 0;
        ok(acs_pool_call_to_frame(&c, NULL, &f, &len) == 0, "2 MiB: framed");
        size_t hl = (size_t)((char *)memchr(f, '\n', len) - f);
        ok(len == hl + 1 + big, "2 MiB: the frame is the header and the bytes, nothing escaped (%zu)", len);
        acs_mcp_call back = { 0 };
        size_t used = 99;
        ok(acs_pool_call_from_frame(f, hl / 2, &back, &used) == 0 && used == 0 && !back.code,
           "2 MiB: half a header: more, length not known yet");
        ok(acs_pool_call_from_frame(f, hl + 1 + 1000, &back, &used) == 0 && used == len && !back.code,
           "2 MiB: the header and part of the code: more, and the frame's length");
        ok(acs_pool_call_from_frame(f, len, &back, &used) == 1 && used == len, "2 MiB: whole");
        check_same(&c, &back, "2 MiB");
        acs_mcp_call_done(&back);

        /* two frames back to back, and the serve CLI's member in the header */
        char *g = NULL;
        size_t glen = 0;
        ok(acs_pool_call_to_frame(&cases[1].c, "{\"json\":true}", &g, &glen) == 0 &&
                   strstr(g, ",\"cli\":{\"json\":true}}\n") != NULL,
           "cli: rides in the header");
        char *two = malloc(glen + len);
        memcpy(two, g, glen);
        memcpy(two + glen, f, len);
        ok(acs_pool_call_from_frame(two, glen + len, &back, &used) == 1 && used == glen, "two frames: the first");
        check_same(&cases[1].c, &back, "two frames, first");
        acs_mcp_call_done(&back);
        ok(acs_pool_call_from_frame(two + used, glen + len - used, &back, &used) == 1 && used == len,
           "two frames: the second");
        check_same(&c, &back, "two frames, second");
        acs_mcp_call_done(&back);
        free(two);
        free(g);
        free(f);
        free(code);

        static const char *const bad[] = { "[]\n", "{}\n", "{\"tool\":0}\n", "{\"tool\":0,\"code_len\":\"1\"}\n",
                                           "{\"tool\":0,\"code_len\":-1}\n", "{\"code_len\":0}\n", "not json\n",
                                           "{\"tool\":0,\"code_len\":0} trailing\n",
                                           "{\"tool\":0,\"code_len\":99999999999}\n" };
        for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
                acs_mcp_call b = { 0 };
                ok(acs_pool_call_from_frame(bad[i], strlen(bad[i]), &b, &used) < 0 && !b.code, "refused: %.*s",
                   (int)strlen(bad[i]) - 1, bad[i]);
        }
        return tap_done();
}
