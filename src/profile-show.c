/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * `acs-launch profiles --show NAME [--json]`: the effective policy after
 * inheritance, so an agent (or its operator) can learn up front what a run
 * may do. Driven by the key table like the parser: every key is shown, and
 * the text form is itself a profile that parses to the same values.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <json-c/json.h>

#include "profile-keys.h"
#include "profile-show.h"

static void size_text(uint64_t v, char *buf, size_t size)
{
        static const char suffix[] = "KMGT";
        int i = -1;
        while (v && v % 1024 == 0 && i < 3) {
                v /= 1024;
                i++;
        }
        if (i < 0)
                snprintf(buf, size, "%" PRIu64, v);
        else
                snprintf(buf, size, "%" PRIu64 "%c", v, suffix[i]);
}

/* One scalar's value as profile text; NULL for an unset string. */
static const char *scalar_text(const acs_profile_key *k, const acs_profile *p, char *buf, size_t size)
{
        const void *field = (const char *)p + k->offset;
        switch (k->type) {
        case ACS_KEY_ENUM: return k->enum_names[*(const int *)field];
        case ACS_KEY_SIZE: size_text(*(const uint64_t *)field, buf, size); return buf;
        case ACS_KEY_SECONDS: snprintf(buf, size, "%g", *(const double *)field); return buf;
        case ACS_KEY_CPU:
        case ACS_KEY_UINT: snprintf(buf, size, "%" PRIu64, *(const uint64_t *)field); return buf;
        default: return *(char *const *)field;
        }
}

static char *const *list_of(const acs_profile_key *k, const acs_profile *p)
{
        return *(char **const *)((const char *)p + k->offset);
}

char *acs_profile_to_text(const acs_profile *p)
{
        char *out = NULL, buf[64];
        size_t len = 0;
        FILE *f = open_memstream(&out, &len);
        if (!f)
                return NULL;
        fprintf(f, "; profile %s, from %s, after inheritance (acs-launch profiles --show)\n",
                p->name ? p->name : "?", p->path ? p->path : "?");
        for (size_t s = 0; s < acs_profile_n_sections; s++) {
                const char *sec = acs_profile_section_table[s].name;
                fprintf(f, "%s[%s]\n", s ? "\n" : "", sec);
                for (size_t i = 0; i < acs_profile_n_keys; i++) {
                        const acs_profile_key *k = &acs_profile_key_table[i];
                        if (strcmp(k->section, sec) != 0 || k->type == ACS_KEY_REF)
                                continue; /* inherit: already resolved into the values */
                        if (!acs_key_is_list(k)) {
                                const char *v = scalar_text(k, p, buf, sizeof buf);
                                if (v)
                                        fprintf(f, "%s = %s\n", k->key, v);
                                continue;
                        }
                        /* lists: one item per continuation line once they get long */
                        fprintf(f, "%s =", k->key);
                        size_t col = strlen(k->key) + 2;
                        for (char *const *v = list_of(k, p); v && *v; v++) {
                                if (col + strlen(*v) > 96) {
                                        fputs("\n       ", f);
                                        col = 7;
                                }
                                fprintf(f, " %s", *v);
                                col += strlen(*v) + 1;
                        }
                        fputc('\n', f);
                }
        }
        bool failed = ferror(f);
        if (fclose(f) != 0 || failed) {
                free(out);
                return NULL;
        }
        return out;
}

static struct json_object *value_json(const acs_profile_key *k, const acs_profile *p)
{
        const void *field = (const char *)p + k->offset;
        if (acs_key_is_list(k)) {
                struct json_object *a = json_object_new_array();
                for (char *const *v = list_of(k, p); a && v && *v; v++)
                        json_object_array_add(a, json_object_new_string(*v));
                return a;
        }
        switch (k->type) {
        case ACS_KEY_ENUM: return json_object_new_string(k->enum_names[*(const int *)field]);
        case ACS_KEY_SECONDS: return json_object_new_double(*(const double *)field);
        case ACS_KEY_SIZE:
        case ACS_KEY_CPU:
        case ACS_KEY_UINT: return json_object_new_int64((int64_t)*(const uint64_t *)field);
        default: {
                const char *s = *(char *const *)field;
                return s ? json_object_new_string(s) : NULL; /* null: unset */
        }
        }
}

struct json_object *acs_profile_to_json(const acs_profile *p)
{
        struct json_object *r = json_object_new_object();
        if (!r)
                return NULL;
        json_object_object_add(r, "schema", json_object_new_string("acs-profile/1"));
        json_object_object_add(r, "name", p->name ? json_object_new_string(p->name) : NULL);
        json_object_object_add(r, "path", p->path ? json_object_new_string(p->path) : NULL);
        for (size_t s = 0; s < acs_profile_n_sections; s++) {
                const char *sec = acs_profile_section_table[s].name;
                struct json_object *o = json_object_new_object();
                for (size_t i = 0; o && i < acs_profile_n_keys; i++) {
                        const acs_profile_key *k = &acs_profile_key_table[i];
                        if (strcmp(k->section, sec) == 0)
                                json_object_object_add(o, k->key, value_json(k, p));
                }
                json_object_object_add(r, sec, o);
        }
        return r;
}

int acs_profile_show(FILE *out, const char *name, bool json, acs_error *err)
{
        _cleanup_profile_ acs_profile *p = NULL;
        int r = acs_profile_load(name, &p, err);
        if (r < 0)
                return r;
        if (json) {
                struct json_object *o = acs_profile_to_json(p);
                const char *s = o ? json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN |
                                                                          JSON_C_TO_STRING_NOSLASHESCAPE)
                                  : NULL;
                if (s)
                        fprintf(out, "%s\n", s);
                json_object_put(o);
                return s ? 0 : acs_error_set(err, -ENOMEM, "profile", "out of memory");
        }
        _cleanup_free_ char *text = acs_profile_to_text(p);
        if (!text)
                return acs_error_set(err, -ENOMEM, "profile", "out of memory");
        fputs(text, out);
        return 0;
}
