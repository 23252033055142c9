/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * libFuzzer target: the profile parser (acs_profile_parse, inih + the key
 * table). The input is one INI text; `inherit` resolves to that same text
 * under another name (a loop the parser must refuse) or, for "base", to a
 * fixed small profile. A refusal must say why (a message in the error
 * record).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "profile.h"

static const char *current;

static int reader(void *userdata, const char *name, char **ret_text, char **ret_path, acs_error *err)
{
        const char *text = strcmp(name, "base") == 0 ? "[limits]\ntimeout = 5\n" : current;

        (void)userdata;
        if (strlen(name) > 64)
                return acs_error_set(err, -ENOENT, "profile", "profile '%.64s...' not found", name);
        *ret_text = strdup(text);
        if (!*ret_text || asprintf(ret_path, "fuzz/%s.ini", name) < 0) {
                free(*ret_text);
                *ret_text = NULL;
                return -ENOMEM;
        }
        return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        char *text = malloc(size + 1);
        acs_profile *p = NULL;
        acs_error err = {0};

        if (!text)
                return 0;
        memcpy(text, data, size);
        text[size] = 0; /* a NUL inside ends the text, as it would from a file read as a string */
        current = text;
        if (acs_profile_parse(text, "fuzz.ini", "fuzz", reader, NULL, &p, &err) >= 0) {
                acs_profile_free(p);
        } else if (!err.msg[0]) {
                abort(); /* every refusal says why */
        }
        free(text);
        return 0;
}
