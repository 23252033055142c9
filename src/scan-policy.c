/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The scan policy on the wire (scan-policy.h). Linked into the launcher and
 * into the in-sandbox scanner, which does not link libacs.a: self-contained.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "scan-policy.h"

/* "key=value\0", or "key\0" when value is NULL */
static void put(FILE *f, const char *key, const char *value)
{
        fputs(key, f);
        if (value) {
                fputc('=', f);
                fputs(value, f);
        }
        fputc('\0', f);
}

static void put_list(FILE *f, const char *key, char *const *v)
{
        for (; v && *v; v++)
                put(f, key, *v);
}

int acs_scan_policy_pack(const acs_profile *p, const char *filename, bool command, char **ret_buf,
                         size_t *ret_len)
{
        char *buf = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&buf, &len);
        if (!f)
                return -ENOMEM;
        put(f, ACS_SCAN_POLICY_MAGIC, NULL);
        put(f, "profile", p->name ? p->name : "");
        put(f, "mode", p->scan_mode == ACS_SCAN_WARN ? "warn" : "enforce");
        fprintf(f, "max_source=%" PRIu64 "%c", p->max_source, '\0');
        put(f, "filename", filename ? filename : "<string>");
        put(f, "kind", command ? "command" : "file");
        put_list(f, "allow_import", p->allow_imports);
        put_list(f, "deny_builtin", p->deny_builtins);
        put_list(f, "deny_attribute", p->deny_attributes);
        put_list(f, "deny_member", p->deny_members);
        bool failed = ferror(f);
        if (fclose(f) != 0 || failed) {
                free(buf);
                return -ENOMEM;
        }
        if (len > ACS_SCAN_POLICY_MAX) {
                free(buf);
                return -E2BIG;
        }
        *ret_buf = buf;
        *ret_len = len;
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
        strv_free(pol->profile.deny_members);
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
        size_t n_imp = 0, n_bi = 0, n_attr = 0, n_mem = 0;
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
                } else if (KEY("deny_member")) {
                        if (strv_add(&pol.profile.deny_members, &n_mem, v) < 0)
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
