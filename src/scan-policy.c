/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The scan policy on the wire (scan-policy.h). Linked into the launcher and
 * into the in-sandbox scanner, which does not link libacs.a: self-contained.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "scan-policy.h"

typedef struct sbuf {
        char *p;
        size_t len, cap;
        bool failed;
} sbuf;

/* "key=value\0", or "key\0" when value is NULL */
static void put(sbuf *b, const char *key, const char *value)
{
        size_t kl = strlen(key), vl = value ? strlen(value) + 1 : 0, need = kl + vl + 1;
        if (b->failed)
                return;
        if (b->len + need > b->cap) {
                size_t cap = b->cap ? b->cap : 512;
                while (cap < b->len + need)
                        cap *= 2;
                char *n = realloc(b->p, cap);
                if (!n) {
                        b->failed = true;
                        return;
                }
                b->p = n;
                b->cap = cap;
        }
        memcpy(b->p + b->len, key, kl);
        if (value) {
                b->p[b->len + kl] = '=';
                memcpy(b->p + b->len + kl + 1, value, vl - 1);
        }
        b->p[b->len + need - 1] = '\0';
        b->len += need;
}

static void put_list(sbuf *b, const char *key, char *const *v)
{
        for (; v && *v; v++)
                put(b, key, *v);
}

int acs_scan_policy_pack(const acs_profile *p, const char *filename, bool command, char **ret_buf,
                         size_t *ret_len)
{
        sbuf b = {0};
        char num[32];
        put(&b, ACS_SCAN_POLICY_MAGIC, NULL);
        put(&b, "profile", p->name ? p->name : "");
        put(&b, "mode", p->scan_mode == ACS_SCAN_WARN ? "warn" : "enforce");
        snprintf(num, sizeof num, "%" PRIu64, p->max_source);
        put(&b, "max_source", num);
        put(&b, "filename", filename ? filename : "<string>");
        put(&b, "kind", command ? "command" : "file");
        put_list(&b, "allow_import", p->allow_imports);
        put_list(&b, "deny_builtin", p->deny_builtins);
        put_list(&b, "deny_attribute", p->deny_attributes);
        if (b.failed) {
                free(b.p);
                return -ENOMEM;
        }
        if (b.len > ACS_SCAN_POLICY_MAX) {
                free(b.p);
                return -E2BIG;
        }
        *ret_buf = b.p;
        *ret_len = b.len;
        return 0;
}

static void strv_free(char **v)
{
        for (char **x = v; x && *x; x++)
                free(*x);
        free(v);
}

static int strv_add(char ***v, size_t *n, const char *s)
{
        char **nv = realloc(*v, (*n + 2) * sizeof *nv);
        if (!nv)
                return -ENOMEM;
        *v = nv;
        if (!(nv[*n] = strdup(s)))
                return -ENOMEM;
        nv[++*n] = NULL;
        return 0;
}

void acs_scan_policy_done(acs_scan_policy *pol)
{
        free(pol->profile.name);
        strv_free(pol->profile.allow_imports);
        strv_free(pol->profile.deny_builtins);
        strv_free(pol->profile.deny_attributes);
        free(pol->filename);
        *pol = (acs_scan_policy){0};
}

static int parse_u64(const char *s, uint64_t *ret)
{
        uint64_t v = 0;
        if (!*s)
                return -EINVAL;
        for (; *s; s++) {
                if (*s < '0' || *s > '9' || v > (UINT64_MAX - 9) / 10)
                        return -EINVAL;
                v = v * 10 + (uint64_t)(*s - '0');
        }
        *ret = v;
        return 0;
}

int acs_scan_policy_unpack(const char *buf, size_t len, acs_scan_policy *ret)
{
        acs_scan_policy pol = {0};
        size_t n_imp = 0, n_bi = 0, n_attr = 0;
        bool have_mode = false, have_kind = false;
        int r = -EINVAL;

        const char *end = buf + len;
        if (len == 0 || buf[len - 1] != '\0' || strcmp(buf, ACS_SCAN_POLICY_MAGIC) != 0)
                return -EINVAL;
        for (const char *s = buf + strlen(buf) + 1; s < end; s += strlen(s) + 1) {
                const char *eq = strchr(s, '=');
                if (!eq)
                        goto fail;
                size_t kl = (size_t)(eq - s);
                const char *v = eq + 1;
#define KEY(k) (kl == sizeof(k) - 1 && memcmp(s, k, kl) == 0)
                if (KEY("profile")) {
                        free(pol.profile.name);
                        if (!(pol.profile.name = strdup(v)))
                                goto nomem;
                } else if (KEY("mode")) {
                        if (strcmp(v, "warn") == 0)
                                pol.profile.scan_mode = ACS_SCAN_WARN;
                        else if (strcmp(v, "enforce") == 0)
                                pol.profile.scan_mode = ACS_SCAN_ENFORCE;
                        else
                                goto fail;
                        have_mode = true;
                } else if (KEY("max_source")) {
                        if (parse_u64(v, &pol.profile.max_source) < 0)
                                goto fail;
                } else if (KEY("filename")) {
                        free(pol.filename);
                        if (!(pol.filename = strdup(v)))
                                goto nomem;
                } else if (KEY("kind")) {
                        if (strcmp(v, "command") != 0 && strcmp(v, "file") != 0)
                                goto fail;
                        pol.command = strcmp(v, "command") == 0;
                        have_kind = true;
                } else if (KEY("allow_import")) {
                        if (strv_add(&pol.profile.allow_imports, &n_imp, v) < 0)
                                goto nomem;
                } else if (KEY("deny_builtin")) {
                        if (strv_add(&pol.profile.deny_builtins, &n_bi, v) < 0)
                                goto nomem;
                } else if (KEY("deny_attribute")) {
                        if (strv_add(&pol.profile.deny_attributes, &n_attr, v) < 0)
                                goto nomem;
                } else
                        goto fail;
#undef KEY
        }
        if (!have_mode || !have_kind || !pol.profile.name || !pol.filename)
                goto fail;
        *ret = pol;
        return 0;
nomem:
        r = -ENOMEM;
fail:
        acs_scan_policy_done(&pol);
        return r;
}
