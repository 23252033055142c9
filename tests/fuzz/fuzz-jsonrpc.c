/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * libFuzzer target: the MCP server's input path. One line is classified by
 * the JSON-RPC framing (acs_jrpc_parse); a tools/call request's params go
 * through the argument validation (acs_mcp_parse_call) under a fixed
 * policy. Checked besides memory safety: every answer the server would
 * send is one line of valid JSON that echoes the id; a refused call says
 * why; an accepted one stays within the policy (profile, timeout cap).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "jsonrpc.h"
#include "mcp-tools.h"

/* as `acs-launch mcp --profile pure-math --allow-profile default --max-timeout 30` */
static char *profiles[] = { (char *)"pure-math", (char *)"default", NULL };
static char *descriptions[] = { (char *)"Pure computation", (char *)"", NULL };
static const acs_mcp_policy pol = { profiles, descriptions, "pure-math", 30 };

/* The line would go out as is: one JSON object, no newline, carrying id. */
static void check_answer(const char *line, const char *id_json)
{
        json_object *o, *id;

        if (!line || strchr(line, '\n'))
                abort();
        o = json_tokener_parse(line);
        if (!o || !json_object_object_get_ex(o, "id", &id))
                abort();
        if (id_json && !strstr(line, id_json))
                abort();
        json_object_put(o);
}

static void check_call(const acs_jrpc_msg *m)
{
        acs_mcp_call c = { 0 };
        char msg[512] = "";
        int code = 0, r;

        r = acs_mcp_parse_call(&pol, m->params, &c, &code, msg, sizeof msg);
        if (r < 0) {
                if (code != ACS_JRPC_INVALID_PARAMS || !msg[0])
                        abort();
        } else {
                if (!c.code)
                        abort();
                if (c.profile && strcmp(c.profile, "pure-math") != 0 && strcmp(c.profile, "default") != 0)
                        abort();
                if (c.has_timeout && !(c.timeout > 0 && c.timeout <= pol.max_timeout))
                        abort();
        }
        acs_mcp_call_done(&c);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        acs_jrpc_msg m = { 0 };
        char *line = NULL, *key;

        if (acs_jrpc_blank((const char *)data, size))
                return 0;
        if (acs_jrpc_parse((const char *)data, size, &m) < 0)
                return 0;
        switch (m.kind) {
        case ACS_JRPC_INVALID:
                if (acs_jrpc_error(m.id_json, m.err_code, m.err_msg, NULL, &line) >= 0)
                        check_answer(line, m.id_json);
                break;
        case ACS_JRPC_REQUEST:
                if (!m.method || !m.id_json)
                        abort();
                if (strcmp(m.method, "tools/call") == 0)
                        check_call(&m);
                if (acs_jrpc_result(m.id_json, m.params, &line) >= 0)
                        check_answer(line, m.id_json);
                break;
        case ACS_JRPC_NOTIFICATION:
                key = acs_jrpc_param_id_key(&m, "requestId");
                free(key);
                break;
        case ACS_JRPC_RESPONSE:
                break;
        }
        free(line);
        acs_jrpc_msg_done(&m);
        return 0;
}
