/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* A session call's changes since the previous call (session-delta.h). */
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "session-delta.h"

static int cmp_path(const char *a, size_t al, const char *b, size_t bl)
{
        int c = memcmp(a, b, al < bl ? al : bl);
        return c ? c : al < bl ? -1 : al > bl;
}

static int cmp_entry(const void *a, const void *b)
{
        const acs_delta_entry *x = a, *y = b;
        return cmp_path(x->path, x->path_len, y->path, y->path_len);
}

void acs_delta_snapshot_done(acs_delta_snapshot *s)
{
        for (size_t i = 0; s && i < s->n; i++) {
                free(s->v[i].path);
                free(s->v[i].target);
        }
        if (s) {
                free(s->v);
                *s = (acs_delta_snapshot){ 0 };
        }
}

static int take(acs_delta_snapshot *s, const acs_change *v, size_t n, char kind)
{
        for (size_t i = 0; i < n; i++) {
                acs_delta_entry *e = &s->v[s->n];
                *e = (acs_delta_entry){ .kind = kind, .type = v[i].type, .mode = v[i].mode, .size = v[i].size,
                                        .path_len = v[i].path_len };
                memcpy(e->sha256, v[i].sha256, sizeof e->sha256);
                if (!(e->path = malloc(v[i].path_len + 1)))
                        return -ENOMEM;
                memcpy(e->path, v[i].path, v[i].path_len);
                e->path[v[i].path_len] = '\0';
                s->n++;
                if (v[i].target && !(e->target = strdup(v[i].target)))
                        return -ENOMEM;
        }
        return 0;
}

int acs_delta_snapshot_take(const acs_changes *c, acs_delta_snapshot *ret)
{
        acs_delta_snapshot s = { .truncated = c->truncated };
        size_t n = c->n_added + c->n_modified + c->n_deleted;
        if (n && !(s.v = calloc(n, sizeof *s.v)))
                return -ENOMEM;
        if (take(&s, c->added, c->n_added, 'A') < 0 || take(&s, c->modified, c->n_modified, 'M') < 0 ||
            take(&s, c->deleted, c->n_deleted, 'D') < 0) {
                acs_delta_snapshot_done(&s);
                return -ENOMEM;
        }
        if (s.n)
                qsort(s.v, s.n, sizeof *s.v, cmp_entry);
        *ret = s;
        return 0;
}

static bool same_content(const acs_delta_entry *a, const acs_delta_entry *b)
{
        return a->type == b->type && a->mode == b->mode && a->size == b->size && strcmp(a->sha256, b->sha256) == 0 &&
               ((!a->target && !b->target) || (a->target && b->target && strcmp(a->target, b->target) == 0));
}

static int push(const acs_delta_entry ***v, size_t *n, const acs_delta_entry *e)
{
        const acs_delta_entry **nv = realloc(*v, (*n + 1) * sizeof **v);
        if (!nv)
                return -ENOMEM;
        nv[(*n)++] = e;
        *v = nv;
        return 0;
}

/* One path: p as the previous call left it, q as this one (NULL: as the lower layer has it). */
static int classify(acs_delta *d, const acs_delta_entry *p, const acs_delta_entry *q)
{
        /* a path one list lacks is the lower layer's: present there unless the other list added it */
        bool in_lower = p ? p->kind != 'A' : q->kind != 'A';
        bool was = p ? p->kind != 'D' : in_lower, is = q ? q->kind != 'D' : in_lower;
        if (!was && is)
                return push(&d->added, &d->n_added, q ? q : p);
        if (was && !is)
                return push(&d->deleted, &d->n_deleted, p ? p : q);
        if (was && is && (!p || !q || !same_content(p, q)))
                return push(&d->modified, &d->n_modified, q ? q : p);
        return 0;
}

int acs_delta_compute(const acs_delta_snapshot *prev, const acs_delta_snapshot *now, acs_delta *ret)
{
        acs_delta d = { 0 };
        size_t i = 0, j = 0;
        int r = 0;
        *ret = d;
        if (prev->truncated || now->truncated)
                return -ERANGE;
        while (r == 0 && (i < prev->n || j < now->n)) {
                const acs_delta_entry *p = i < prev->n ? &prev->v[i] : NULL, *q = j < now->n ? &now->v[j] : NULL;
                int c = !p ? 1 : !q ? -1 : cmp_path(p->path, p->path_len, q->path, q->path_len);
                r = classify(&d, c <= 0 ? p : NULL, c >= 0 ? q : NULL);
                i += c <= 0;
                j += c >= 0;
        }
        if (r < 0) {
                acs_delta_done(&d);
                return r;
        }
        *ret = d;
        return 0;
}

void acs_delta_done(acs_delta *d)
{
        free(d->added);
        free(d->modified);
        free(d->deleted);
        *d = (acs_delta){ 0 };
}

static struct json_object *paths(const acs_delta_entry *const *v, size_t n)
{
        struct json_object *a = json_object_new_array();
        for (size_t i = 0; i < n; i++) {
                bool esc = false;
                char *e = acs_escape_bytes(v[i]->path, v[i]->path_len, &esc);
                json_object_array_add(a, e ? json_object_new_string(e) : NULL);
                free(e);
        }
        return a;
}

struct json_object *acs_delta_to_json(const acs_delta *d)
{
        struct json_object *o = json_object_new_object();
        json_object_object_add(o, "added", paths(d->added, d->n_added));
        json_object_object_add(o, "modified", paths(d->modified, d->n_modified));
        json_object_object_add(o, "deleted", paths(d->deleted, d->n_deleted));
        return o;
}
