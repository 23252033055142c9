/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * libFuzzer target: the list of changes as JSON (acs_changes_from_json,
 * which reads a kept layer's manifest back). Anything it accepts must
 * survive a round trip: to JSON and back gives the same JSON text, and the
 * short listing and the MCP clipping work on it.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "diff.h"

static char *serialise(const acs_changes *c)
{
        json_object *j = acs_changes_to_json(c);
        char *s = j ? strdup(json_object_to_json_string_ext(j, JSON_C_TO_STRING_PLAIN)) : NULL;

        json_object_put(j);
        return s;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        struct json_tokener *tok = json_tokener_new_ex(64);
        acs_changes c = { 0 }, again = { 0 };
        acs_error err = { 0 };
        json_object *j, *j2;
        char *s1, *s2;
        FILE *f;

        if (!tok)
                return 0;
        j = json_tokener_parse_ex(tok, (const char *)data, (int)(size > INT32_MAX ? INT32_MAX : size));
        json_tokener_free(tok);
        if (acs_changes_from_json(j, &c, &err) < 0) {
                if (!err.msg[0])
                        abort();
                json_object_put(j);
                return 0;
        }
        json_object_put(j);
        s1 = serialise(&c);
        if (!s1)
                abort();
        j2 = json_tokener_parse(s1);
        if (acs_changes_from_json(j2, &again, &err) < 0)
                abort(); /* what we write we must read */
        s2 = serialise(&again);
        if (!s2 || strcmp(s1, s2) != 0)
                abort();
        if ((f = fopen("/dev/null", "w"))) {
                acs_changes_print_short(f, &c);
                fclose(f);
        }
        acs_changes_clip(&again, 1);
        free(s1);
        free(s2);
        json_object_put(j2);
        acs_changes_free(&c);
        acs_changes_free(&again);
        return 0;
}
