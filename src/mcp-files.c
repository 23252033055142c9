/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The MCP tools write_file and read_file (mcp-files.h). */
#include <stdarg.h>
#include <string.h>

#include <json-c/json.h>
#include <nettle/base64.h>

#include "mcp-files.h"
#include "session-files.h"

static const char write_tool[] =
        "{\"name\":\"write_file\",\"title\":\"Write a file into a session\",\"description\":\"Write a file "
        "into a session's /workspace (made with its parent directories, or replaced), where the session's next "
        "execute_python call finds it. A new session id starts the session. At most 2 MiB; UTF-8 text, or "
        "any bytes with encoding base64. The path is relative to /workspace and cannot leave it.\","
        "\"inputSchema\":{\"type\":\"object\",\"properties\":{"
        "\"session\":{\"type\":\"string\",\"pattern\":\"^[A-Za-z0-9._:-]{1,128}$\"},"
        "\"path\":{\"type\":\"string\",\"description\":\"e.g. data/input.csv or /workspace/data/input.csv\"},"
        "\"content\":{\"type\":\"string\"},"
        "\"encoding\":{\"type\":\"string\",\"enum\":[\"utf-8\",\"base64\"],\"default\":\"utf-8\"}},"
        "\"required\":[\"session\",\"path\",\"content\"],\"additionalProperties\":false},"
        "\"annotations\":{\"title\":\"Write a file into a session\",\"readOnlyHint\":false,"
        "\"destructiveHint\":true,\"idempotentHint\":true,\"openWorldHint\":false}}";

static const char read_tool[] =
        "{\"name\":\"read_file\",\"title\":\"Read a file from a session\",\"description\":\"Read a file from a "
        "session's /workspace (one its code wrote, e.g. a CSV or a PNG): as UTF-8 text, or with encoding "
        "base64 byte for byte. At most 2 MiB; regular files only. The path is relative to /workspace and "
        "cannot leave it.\","
        "\"inputSchema\":{\"type\":\"object\",\"properties\":{"
        "\"session\":{\"type\":\"string\",\"pattern\":\"^[A-Za-z0-9._:-]{1,128}$\"},"
        "\"path\":{\"type\":\"string\"},"
        "\"encoding\":{\"type\":\"string\",\"enum\":[\"utf-8\",\"base64\"],\"default\":\"utf-8\"}},"
        "\"required\":[\"session\",\"path\"],\"additionalProperties\":false},"
        "\"annotations\":{\"title\":\"Read a file from a session\",\"readOnlyHint\":true,"
        "\"idempotentHint\":true,\"openWorldHint\":false}}";

void acs_files_describe(struct json_object *list)
{
        struct json_object *tools;
        if (!json_object_object_get_ex(list, "tools", &tools))
                return;
        json_object_array_add(tools, json_tokener_parse(write_tool));
        json_object_array_add(tools, json_tokener_parse(read_tool));
}

/* base64 (whitespace ignored) into *ret; its length, or -EINVAL, -EFBIG (beyond max), -ENOMEM. */
static long decode64(const char *s, size_t len, size_t max, uint8_t **ret)
{
        struct base64_decode_ctx ctx;
        size_t out = BASE64_DECODE_LENGTH(len);
        *ret = NULL;
        uint8_t *buf = malloc(out + 1);
        if (!buf)
                return -ENOMEM;
        base64_decode_init(&ctx);
        if (!base64_decode_update(&ctx, &out, buf, len, s) || !base64_decode_final(&ctx)) {
                free(buf);
                return -EINVAL;
        }
        if (out > max) {
                free(buf);
                return -EFBIG;
        }
        buf[out] = '\0'; /* as a call's code always is */
        *ret = buf;
        return (long)out;
}

static int bad(char *msg, size_t size, int r, const char *fmt, ...) _printf_(4, 5);
static int bad(char *msg, size_t size, int r, const char *fmt, ...)
{
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(msg, size, fmt, ap);
        va_end(ap);
        return r;
}

int acs_files_parse(acs_sessions *S, const char *session, struct json_object *params, acs_mcp_call *c, char *msg,
                    size_t size)
{
        struct json_object *name, *args = NULL, *v;
        if (!json_object_object_get_ex(params, "name", &name) || !json_object_is_type(name, json_type_string))
                return 0;
        const char *tool = json_object_get_string(name);
        bool w = strcmp(tool, "write_file") == 0;
        if (!w && strcmp(tool, "read_file") != 0)
                return 0;
        if (!session)
                return bad(msg, size, -EINVAL, "%s needs \"session\": files live in a session's /workspace", tool);
        if (!w && !acs_sessions_exists(S, session))
                return bad(msg, size, -ENOENT, "No session %s on this connection: start it with execute_python or "
                                               "write_file", session);
        json_object_object_get_ex(params, "arguments", &args);
        json_object_object_foreach(args, key, val)
        {
                (void)val;
                if (strcmp(key, "path") && strcmp(key, "encoding") && (!w || strcmp(key, "content")))
                        return bad(msg, size, -EINVAL, "Unknown argument \"%.64s\"", key);
        }
        if (!json_object_object_get_ex(args, "path", &v) || !json_object_is_type(v, json_type_string))
                return bad(msg, size, -EINVAL, "%s needs \"path\" (a string)", tool);
        const char *path = json_object_get_string(v);
        size_t plen = (size_t)json_object_get_string_len(v);
        if (!acs_session_file_rel(path, plen))
                return bad(msg, size, -EINVAL, "\"path\" %.200s: not a file in /workspace (relative to it, or "
                                               "/workspace/...)", path);
        *c = (acs_mcp_call){ .tool = w ? ACS_TOOL_WRITE_FILE : ACS_TOOL_READ_FILE };
        if (json_object_object_get_ex(args, "encoding", &v)) {
                const char *e = json_object_is_type(v, json_type_string) ? json_object_get_string(v) : "";
                if (strcmp(e, "base64") && strcmp(e, "utf-8"))
                        return bad(msg, size, -EINVAL, "\"encoding\" must be \"utf-8\" or \"base64\"");
                c->base64 = strcmp(e, "base64") == 0;
        }
        if (w) {
                if (!json_object_object_get_ex(args, "content", &v) || !json_object_is_type(v, json_type_string))
                        return bad(msg, size, -EINVAL, "write_file needs \"content\" (a string)");
                /* the file's own bytes from here on: decoded once, never escaped again (pool.h's frame) */
                size_t len = (size_t)json_object_get_string_len(v);
                uint8_t *raw = NULL;
                long n = c->base64 ? decode64(json_object_get_string(v), len, ACS_SESSION_FILE_MAX, &raw) : (long)len;
                if (n == -EINVAL)
                        return bad(msg, size, -EINVAL, "\"content\" is not valid base64");
                if (n == -EFBIG || (size_t)n > ACS_SESSION_FILE_MAX) {
                        free(raw);
                        return bad(msg, size, -EFBIG, "\"content\" is larger than %s: files in and out are capped",
                                   "2 MiB");
                }
                if (n < 0)
                        return -ENOMEM;
                if (!raw && (raw = malloc(len + 1)))
                        memcpy(raw, json_object_get_string(v), len + 1);
                if (!raw)
                        return -ENOMEM;
                c->code = (char *)raw;
                c->code_len = (size_t)n;
        }
        if (!(c->path = strdup(path)))
                return -ENOMEM;
        return 1;
}

static struct json_object *result(const char *text, size_t text_len, struct json_object *sc)
{
        struct json_object *r = json_object_new_object(), *a = json_object_new_array(), *t = json_object_new_object();
        json_object_object_add(t, "type", json_object_new_string("text"));
        json_object_object_add(t, "text", json_object_new_string_len(text, (int)text_len));
        json_object_array_add(a, t);
        json_object_object_add(r, "content", a);
        json_object_object_add(r, "structuredContent", sc);
        json_object_object_add(r, "isError", json_object_new_boolean(0));
        return r;
}

struct json_object *acs_files_call(acs_run_warm *w, const acs_mcp_call *c)
{
        bool write = c->tool == ACS_TOOL_WRITE_FILE;
        const char *rel = acs_session_file_rel(c->path, strlen(c->path));
        _cleanup_free_ char *data = NULL, *enc = NULL, *full = NULL;
        size_t len = c->code_len, out_len = 0;
        acs_error err = { 0 };
        char msg[4400];
        if (!rel || asprintf(&full, "/workspace/%s", rel) < 0)
                return acs_mcp_error_result("\"path\": not a file in /workspace");
        if (acs_run_session_file(w, write, c->path, write ? c->code : NULL, write ? len : 0,
                                 &data, &out_len, &err) < 0) {
                snprintf(msg, sizeof msg, "%s", err.msg);
                return acs_mcp_error_result(msg);
        }
        struct json_object *sc = json_object_new_object();
        json_object_object_add(sc, "path", json_object_new_string(full));
        json_object_object_add(sc, "size", json_object_new_uint64(write ? len : out_len));
        if (write) {
                snprintf(msg, sizeof msg, "Wrote %zu bytes to %.4200s.", len, full);
                return result(msg, strlen(msg), sc);
        }
        json_object_object_add(sc, "encoding", json_object_new_string(c->base64 ? "base64" : "utf-8"));
        if (!c->base64 && !acs_session_text_ok(data, out_len)) {
                json_object_put(sc);
                snprintf(msg, sizeof msg, "%.4200s is not UTF-8 text: read it with \"encoding\": \"base64\"", full);
                return acs_mcp_error_result(msg);
        }
        if (c->base64) {
                if (!(enc = malloc(BASE64_ENCODE_RAW_LENGTH(out_len) + 1))) {
                        json_object_put(sc);
                        return NULL;
                }
                base64_encode_raw(enc, out_len, (const uint8_t *)data);
                out_len = BASE64_ENCODE_RAW_LENGTH(out_len);
        }
        const char *text = c->base64 ? enc : data;
        json_object_object_add(sc, "content", json_object_new_string_len(text, (int)out_len));
        return result(text, out_len, sc);
}
