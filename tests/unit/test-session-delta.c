/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A session call's changes since the previous call (session-delta.c):
 * both lists are against the session's start, a path one lacks is as the
 * lower layer has it, and the delta says what changed in between.
 */
#include <stdio.h>
#include <string.h>

#include <json-c/json.h>

#include "../tap.h"
#include "session-delta.h"

/* "A:path:hash M:... D:..." into c (hash "" for none) */
static void parse(const char *spec, acs_changes *c)
{
        char buf[256], *save = NULL;
        *c = (acs_changes){ 0 };
        snprintf(buf, sizeof buf, "%s", spec);
        for (char *tok = strtok_r(buf, " ", &save); tok; tok = strtok_r(NULL, " ", &save)) {
                char kind = tok[0], *path = tok + 2, *hash = strchr(path, ':');
                *hash++ = '\0';
                acs_change ch = { .path = strdup(path), .path_len = strlen(path), .type = ACS_FT_FILE, .mode = 0644,
                                  .size = strlen(hash) };
                snprintf(ch.sha256, sizeof ch.sha256, "%s", hash);
                acs_change **v = kind == 'A' ? &c->added : kind == 'M' ? &c->modified : &c->deleted;
                size_t *n = kind == 'A' ? &c->n_added : kind == 'M' ? &c->n_modified : &c->n_deleted;
                if (kind == 'D')
                        ch.type = ACS_FT_NONE;
                *v = realloc(*v, (*n + 1) * sizeof **v);
                (*v)[(*n)++] = ch;
        }
}

static const struct {
        const char *name, *prev, *now, *want; /* want: the JSON of the delta */
} cases[] = {
        { "first call: the start is the previous state", "", "A:x:h1 M:y:h2 D:z:",
          "{\"added\":[\"x\"],\"modified\":[\"y\"],\"deleted\":[\"z\"]}" },
        { "nothing changed", "A:x:h1 M:y:h2", "A:x:h1 M:y:h2", "{\"added\":[],\"modified\":[],\"deleted\":[]}" },
        { "an added file changed again", "A:x:h1", "A:x:h2", "{\"added\":[],\"modified\":[\"x\"],\"deleted\":[]}" },
        { "an added file removed", "A:x:h1", "", "{\"added\":[],\"modified\":[],\"deleted\":[\"x\"]}" },
        { "a modified file put back as it was", "M:y:h2", "", "{\"added\":[],\"modified\":[\"y\"],\"deleted\":[]}" },
        { "a deleted file restored", "D:z:", "", "{\"added\":[\"z\"],\"modified\":[],\"deleted\":[]}" },
        { "a deleted file re-created differently", "D:z:", "M:z:h3", "{\"added\":[\"z\"],\"modified\":[],\"deleted\":[]}" },
        { "a lower file deleted now", "", "D:z:", "{\"added\":[],\"modified\":[],\"deleted\":[\"z\"]}" },
        { "a modified file deleted", "M:y:h2", "D:y:", "{\"added\":[],\"modified\":[],\"deleted\":[\"y\"]}" },
        { "paths interleave", "A:b:1 A:d:1", "A:a:1 A:b:1 A:c:1",
          "{\"added\":[\"a\",\"c\"],\"modified\":[],\"deleted\":[\"d\"]}" },
};

int main(void)
{
        for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
                acs_changes p, n;
                acs_delta_snapshot sp, sn;
                acs_delta d;
                parse(cases[i].prev, &p);
                parse(cases[i].now, &n);
                ok(acs_delta_snapshot_take(&p, &sp) == 0 && acs_delta_snapshot_take(&n, &sn) == 0, "%s: snapshots",
                   cases[i].name);
                ok(acs_delta_compute(&sp, &sn, &d) == 0, "%s: computed", cases[i].name);
                struct json_object *j = acs_delta_to_json(&d);
                const char *got = json_object_to_json_string_ext(j, JSON_C_TO_STRING_PLAIN);
                ok(strcmp(got, cases[i].want) == 0, "%s: %s", cases[i].name, got);
                json_object_put(j);
                acs_delta_done(&d);
                acs_delta_snapshot_done(&sp);
                acs_delta_snapshot_done(&sn);
                acs_changes_free(&p);
                acs_changes_free(&n);
        }
        acs_changes t = { .truncated = true };
        acs_delta_snapshot st, s0 = { 0 };
        acs_delta d;
        ok(acs_delta_snapshot_take(&t, &st) == 0 && acs_delta_compute(&s0, &st, &d) == -ERANGE,
           "a truncated list gives no delta");
        acs_delta_snapshot_done(&st);
        return tap_done();
}
