/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* acs_changes <-> JSON, the short human summary, and freeing. Pure. */
#include <json-c/json.h>
#include <string.h>

#include "diff.h"
#include "diff-internal.h"

void acs_changes_free(acs_changes *c)
{
        if (!c)
                return;
        for (size_t i = 0; i < c->n_added; i++)
                acs_change_done(&c->added[i]);
        for (size_t i = 0; i < c->n_modified; i++)
                acs_change_done(&c->modified[i]);
        for (size_t i = 0; i < c->n_deleted; i++)
                acs_change_done(&c->deleted[i]);
        free(c->added);
        free(c->modified);
        free(c->deleted);
        free(c->patch);
        acs_strv_free(c->patch_skipped);
        memset(c, 0, sizeof *c);
}

size_t acs_changes_count(const acs_changes *c)
{
        return c->n_added + c->n_modified + c->n_deleted;
}

/* key = escaped bytes, plus key_escaped = true when they were not UTF-8 */
static int add_bytes(json_object *o, const char *key, const char *s, size_t n)
{
        bool escaped = false;
        _cleanup_free_ char *e = acs_escape_bytes(s, n, &escaped);
        char ekey[64];

        if (!e)
                return -ENOMEM;
        json_object_object_add(o, key, json_object_new_string(e));
        if (escaped) {
                snprintf(ekey, sizeof ekey, "%s_escaped", key);
                json_object_object_add(o, ekey, json_object_new_boolean(1));
        }
        return 0;
}

static void add_mode(json_object *o, const char *key, uint32_t mode)
{
        char buf[16];

        snprintf(buf, sizeof buf, "%04o", mode & 07777);
        json_object_object_add(o, key, json_object_new_string(buf));
}

static json_object *entry_json(const acs_change *ch, bool deleted)
{
        json_object *o = json_object_new_object();
        acs_ftype t = deleted ? ch->old_type : ch->type;

        if (!o)
                return NULL;
        add_bytes(o, "path", ch->path, ch->path_len);
        json_object_object_add(o, "type", json_object_new_string(acs_ftype_to_string(t)));
        json_object_object_add(o, "size",
                               json_object_new_int64((int64_t)(deleted ? ch->old_size : ch->size)));
        add_mode(o, "mode", deleted ? ch->old_mode : ch->mode);
        if (!deleted && ch->sha256[0])
                json_object_object_add(o, "sha256", json_object_new_string(ch->sha256));
        if (!deleted && ch->target)
                add_bytes(o, "target", ch->target, strlen(ch->target));
        if (!deleted && (t == ACS_FT_CHAR || t == ACS_FT_BLOCK))
                json_object_object_add(o, "rdev", json_object_new_int64((int64_t)ch->rdev));
        if (!deleted && ch->old_type != ACS_FT_NONE) {
                if (ch->old_type != ch->type)
                        json_object_object_add(
                                o, "old_type",
                                json_object_new_string(acs_ftype_to_string(ch->old_type)));
                if (ch->old_mode != ch->mode)
                        add_mode(o, "old_mode", ch->old_mode);
                if (ch->old_size != ch->size)
                        json_object_object_add(o, "old_size",
                                               json_object_new_int64((int64_t)ch->old_size));
        }
        if (ch->old_sha256[0])
                json_object_object_add(o, "old_sha256", json_object_new_string(ch->old_sha256));
        if (ch->old_target)
                add_bytes(o, "old_target", ch->old_target, strlen(ch->old_target));
        if (ch->is_protected)
                json_object_object_add(o, "protected", json_object_new_boolean(1));
        if (ch->host_dir_changed)
                json_object_object_add(o, "host_dir_changed", json_object_new_boolean(1));
        if (!deleted && ch->old_type != ACS_FT_NONE) {
                char op = acs_change_op(ch, 'M');

                json_object_object_add(o, "change", json_object_new_string(op == 'T' ? "type" : op == 'P' ? "mode"
                                                                                : "content"));
        }
        return o;
}

static size_t digits(uint64_t v)
{
        size_t n = 1;

        while (v >= 10)
                v /= 10, n++;
        return n;
}

/* ,"key":"value" and, when escaped, ,"key_escaped":true */
static size_t bytes_cost(const char *key, const char *s, size_t n)
{
        bool escaped = false;
        size_t k = strlen(key), c = acs_json_cost(s, n, &escaped);

        return k + 6 + c + (escaped ? k + 16 : 0);
}

/* Mirrors entry_json field by field: exact, but for the comma it adds. */
size_t acs_change_json_cost(const acs_change *ch, bool deleted)
{
        acs_ftype t = deleted ? ch->old_type : ch->type;
        size_t c = 3; /* {} and the comma before the next entry */

        c += bytes_cost("path", ch->path ? ch->path : "", ch->path_len) - 1; /* no leading comma */
        c += 10 + strlen(acs_ftype_to_string(t));                             /* ,"type":"file" */
        c += 8 + digits(deleted ? ch->old_size : ch->size);                   /* ,"size":N */
        c += 14;                                                               /* ,"mode":"0644" */
        if (!deleted && ch->sha256[0])
                c += 76;
        if (!deleted && ch->target)
                c += bytes_cost("target", ch->target, strlen(ch->target));
        if (!deleted && (t == ACS_FT_CHAR || t == ACS_FT_BLOCK))
                c += 8 + digits(ch->rdev);
        if (!deleted && ch->old_type != ACS_FT_NONE) {
                if (ch->old_type != ch->type)
                        c += 14 + strlen(acs_ftype_to_string(ch->old_type));
                if (ch->old_mode != ch->mode)
                        c += 18;
                if (ch->old_size != ch->size)
                        c += 12 + digits(ch->old_size);
        }
        if (ch->old_sha256[0])
                c += 80;
        if (ch->old_target)
                c += bytes_cost("old_target", ch->old_target, strlen(ch->old_target));
        /* set after the walk (protection, apply), so counted always where they may appear */
        c += 17;                                                               /* ,"protected":true */
        if (!deleted && ch->old_type != ACS_FT_NONE)
                c += 20;                                                       /* ,"change":"content" */
        else if (!deleted)
                c += 24;                                                       /* ,"host_dir_changed":true */
        return c;
}

static json_object *list_json(const acs_change *v, size_t n, bool deleted)
{
        json_object *a = json_object_new_array_ext((int)n);

        for (size_t i = 0; a && i < n; i++)
                json_object_array_add(a, entry_json(&v[i], deleted));
        return a;
}

struct json_object *acs_changes_to_json(const acs_changes *c)
{
        json_object *o = json_object_new_object();

        if (!o)
                return NULL;
        json_object_object_add(o, "added", list_json(c->added, c->n_added, false));
        json_object_object_add(o, "modified", list_json(c->modified, c->n_modified, false));
        json_object_object_add(o, "deleted", list_json(c->deleted, c->n_deleted, true));
        if (c->patch)
                add_bytes(o, "patch", c->patch, c->patch_len);
        if (c->truncated) {
                json_object *om = json_object_new_object();

                json_object_object_add(o, "truncated", json_object_new_boolean(1));
                json_object_object_add(om, "entries", json_object_new_uint64(c->omitted_entries));
                json_object_object_add(om, "bytes", json_object_new_uint64(c->omitted_bytes));
                json_object_object_add(om, "dirs", json_object_new_uint64(c->omitted_dirs));
                json_object_object_add(o, "omitted", om);
        }
        if (c->patch_omitted)
                json_object_object_add(o, "patch_omitted", json_object_new_boolean(1));
        if (c->patch_truncated)
                json_object_object_add(o, "patch_truncated", json_object_new_boolean(1));
        if (c->patch_skipped) {
                json_object *a = json_object_new_array();

                for (char **p = c->patch_skipped; *p; p++) {
                        bool esc;
                        _cleanup_free_ char *e = acs_escape_bytes(*p, strlen(*p), &esc);

                        if (e)
                                json_object_array_add(a, json_object_new_string(e));
                }
                json_object_object_add(o, "patch_skipped", a);
        }
        return o;
}

/* ---- parsing (kept layers) ---- */

static int get_bytes(json_object *o, const char *key, char **ret)
{
        json_object *v, *e;
        char ekey[64];
        const char *s;

        *ret = NULL;
        if (!json_object_object_get_ex(o, key, &v) || json_object_is_type(v, json_type_null))
                return 0;
        if (!json_object_is_type(v, json_type_string))
                return -EINVAL;
        s = json_object_get_string(v);
        snprintf(ekey, sizeof ekey, "%s_escaped", key);
        if (json_object_object_get_ex(o, ekey, &e) && json_object_get_boolean(e))
                *ret = acs_unescape_bytes(s, NULL);
        else
                *ret = strdup(s);
        return *ret ? 0 : -EINVAL;
}

static int get_mode(json_object *o, const char *key, uint32_t *ret)
{
        json_object *v;
        char *end = NULL;
        unsigned long m;

        if (!json_object_object_get_ex(o, key, &v))
                return 0;
        if (!json_object_is_type(v, json_type_string))
                return -EINVAL;
        m = strtoul(json_object_get_string(v), &end, 8);
        if (!end || *end || m > 07777)
                return -EINVAL;
        *ret = (uint32_t)m;
        return 1;
}

static int get_hash(json_object *o, const char *key, char hex[static 65])
{
        json_object *v;
        const char *s;

        if (!json_object_object_get_ex(o, key, &v))
                return 0;
        if (!json_object_is_type(v, json_type_string))
                return -EINVAL;
        s = json_object_get_string(v);
        if (!s || strlen(s) != 64 || strspn(s, "0123456789abcdef") != 64)
                return -EINVAL;
        memcpy(hex, s, 65);
        return 0;
}

static int entry_from_json(json_object *o, char kind, acs_change *ch)
{
        json_object *v;
        acs_ftype t;
        uint64_t size = 0;
        uint32_t mode = 0;
        int r;

        if (!json_object_is_type(o, json_type_object))
                return -EINVAL;
        if ((r = get_bytes(o, "path", &ch->path)) < 0 || !ch->path)
                return -EINVAL;
        ch->path_len = strlen(ch->path);
        if (!json_object_object_get_ex(o, "type", &v) || !json_object_is_type(v, json_type_string) ||
            (t = acs_ftype_from_string(json_object_get_string(v))) == ACS_FT_NONE)
                return -EINVAL;
        if (json_object_object_get_ex(o, "size", &v))
                size = (uint64_t)json_object_get_int64(v);
        if (get_mode(o, "mode", &mode) < 0)
                return -EINVAL;
        if (json_object_object_get_ex(o, "protected", &v))
                ch->is_protected = json_object_get_boolean(v);
        if (json_object_object_get_ex(o, "host_dir_changed", &v))
                ch->host_dir_changed = json_object_get_boolean(v);
        if (get_hash(o, "old_sha256", ch->old_sha256) < 0 ||
            get_bytes(o, "old_target", &ch->old_target) < 0)
                return -EINVAL;
        if (kind == 'D') {
                ch->old_type = t, ch->old_size = size, ch->old_mode = mode;
                return 0;
        }
        ch->type = t, ch->size = size, ch->mode = mode;
        if (get_hash(o, "sha256", ch->sha256) < 0 || get_bytes(o, "target", &ch->target) < 0)
                return -EINVAL;
        if (json_object_object_get_ex(o, "rdev", &v))
                ch->rdev = (uint64_t)json_object_get_int64(v);
        if (kind == 'M') {
                ch->old_type = t, ch->old_mode = mode, ch->old_size = size;
                if (json_object_object_get_ex(o, "old_type", &v) &&
                    (ch->old_type = acs_ftype_from_string(json_object_get_string(v))) == ACS_FT_NONE)
                        return -EINVAL;
                if (get_mode(o, "old_mode", &ch->old_mode) < 0)
                        return -EINVAL;
                if (json_object_object_get_ex(o, "old_size", &v))
                        ch->old_size = (uint64_t)json_object_get_int64(v);
        }
        return 0;
}

static int list_from_json(json_object *j, const char *key, char kind, acs_change **v, size_t *n)
{
        json_object *a;
        size_t len, cap = 0;

        if (!json_object_object_get_ex(j, key, &a) || !json_object_is_type(a, json_type_array))
                return -EINVAL;
        len = json_object_array_length(a);
        for (size_t i = 0; i < len; i++) {
                acs_change ch = {};
                int r = entry_from_json(json_object_array_get_idx(a, i), kind, &ch);

                if (r >= 0)
                        r = acs_change_list_push(v, n, &cap, &ch);
                if (r < 0) {
                        acs_change_done(&ch);
                        return r;
                }
        }
        return 0;
}

int acs_changes_from_json(struct json_object *j, acs_changes *ret, acs_error *err)
{
        acs_changes c = {};
        json_object *v;

        if (!j || !json_object_is_type(j, json_type_object) ||
            list_from_json(j, "added", 'A', &c.added, &c.n_added) < 0 ||
            list_from_json(j, "modified", 'M', &c.modified, &c.n_modified) < 0 ||
            list_from_json(j, "deleted", 'D', &c.deleted, &c.n_deleted) < 0 ||
            get_bytes(j, "patch", &c.patch) < 0) {
                acs_changes_free(&c);
                return acs_error_set(err, -EINVAL, "apply", "malformed list of changes");
        }
        if (c.patch)
                c.patch_len = strlen(c.patch);
        if (json_object_object_get_ex(j, "truncated", &v))
                c.truncated = json_object_get_boolean(v);
        if (json_object_object_get_ex(j, "omitted", &v)) {
                json_object *n;

                if (json_object_object_get_ex(v, "entries", &n))
                        c.omitted_entries = json_object_get_uint64(n);
                if (json_object_object_get_ex(v, "bytes", &n))
                        c.omitted_bytes = json_object_get_uint64(n);
                if (json_object_object_get_ex(v, "dirs", &n))
                        c.omitted_dirs = json_object_get_uint64(n);
        }
        *ret = c;
        return 0;
}

static void clip_list(acs_changes *c, acs_change *v, size_t *n, size_t keep, bool deleted)
{
        for (size_t i = keep; i < *n; i++) {
                c->omitted_entries++;
                c->omitted_bytes += deleted ? v[i].old_size : v[i].size;
                acs_change_done(&v[i]);
        }
        if (*n > keep) {
                *n = keep;
                c->truncated = true;
        }
}

void acs_changes_clip(acs_changes *c, size_t keep)
{
        clip_list(c, c->added, &c->n_added, keep, false);
        clip_list(c, c->modified, &c->n_modified, keep, false);
        clip_list(c, c->deleted, &c->n_deleted, keep, true);
        if (c->patch || c->patch_skipped)
                c->patch_omitted = true;
        free(c->patch);
        c->patch = NULL;
        c->patch_len = 0;
        c->patch_truncated = false;
        acs_strv_free(c->patch_skipped);
        c->patch_skipped = NULL;
}

/* ---- human summary ---- */

typedef struct short_line {
        char op;
        const acs_change *ch;
} short_line;

static int cmp_lines(const void *a, const void *b)
{
        const short_line *x = a, *y = b;
        int r = strcmp(x->ch->path, y->ch->path);

        /* for one path: the deletion first, as git does */
        return r ? r : (x->op == 'D') ? -1 : (y->op == 'D') ? 1 : 0;
}

void acs_changes_print_short(FILE *f, const acs_changes *c)
{
        size_t n = acs_changes_count(c), k = 0;
        _cleanup_free_ short_line *v = n ? calloc(n, sizeof *v) : NULL;

        if (n && !v)
                return;
        for (size_t i = 0; i < c->n_added; i++)
                v[k++] = (short_line){ 'A', &c->added[i] };
        for (size_t i = 0; i < c->n_modified; i++)
                v[k++] = (short_line){ acs_change_op(&c->modified[i], 'M'), &c->modified[i] };
        for (size_t i = 0; i < c->n_deleted; i++)
                v[k++] = (short_line){ 'D', &c->deleted[i] };
        if (n)
                qsort(v, n, sizeof *v, cmp_lines);
        for (size_t i = 0; i < n; i++) {
                const acs_change *ch = v[i].ch;
                acs_ftype t = v[i].op == 'D' ? ch->old_type : ch->type;
                _cleanup_free_ char *q = acs_quote_c(ch->path, ch->path_len);
                _cleanup_free_ char *tq = ch->target && v[i].op != 'D'
                                                  ? acs_quote_c(ch->target, strlen(ch->target))
                                                  : NULL;

                fprintf(f, "%c  %s%s", v[i].op, q ? q : "?", t == ACS_FT_DIR ? "/" : "");
                if (tq)
                        fprintf(f, " -> %s", tq);
                if (t != ACS_FT_FILE && t != ACS_FT_DIR && t != ACS_FT_SYMLINK)
                        fprintf(f, " (%s)", acs_ftype_to_string(t));
                if ((v[i].op == 'P' || v[i].op == 'M') && t != ACS_FT_SYMLINK && ch->mode != ch->old_mode)
                        fprintf(f, " (%s%04o -> %04o)", v[i].op == 'M' ? "mode " : "", ch->old_mode, ch->mode);
                if (ch->is_protected)
                        fputs(" (protected)", f);
                fputc('\n', f);
        }
        if (c->truncated)
                fprintf(f, "...  (%llu more changes not listed%s)\n", (unsigned long long)c->omitted_entries,
                        c->omitted_dirs ? ", and directories not examined" : "");
}
