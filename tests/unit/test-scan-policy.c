/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The scan policy codec (src/scan-policy.c): what the launcher sends the
 * in-sandbox scanner. Round trips, and malformed input refused whole.
 */
#include <stdio.h>
#include <string.h>

#include "../tap.h"
#include "scan-policy.h"

static bool strv_eq(char *const *a, char *const *b)
{
        for (; a && *a && b && *b; a++, b++)
                if (strcmp(*a, *b) != 0)
                        return false;
        return (!a || !*a) && (!b || !*b);
}

static void round_trip(void)
{
        char *imports[] = { "math", "json", "collections.abc", NULL };
        char *builtins[] = { "eval", "exec", NULL };
        char *attrs[] = { "__class__", "a=b", NULL };
        char *members[] = { "os.system", "os.exec*", NULL };
        acs_profile p = { .name = "pure-math", .scan_mode = ACS_SCAN_WARN, .max_source = 1048576,
                          .allow_imports = imports, .deny_builtins = builtins, .deny_attributes = attrs,
                          .deny_members = members };
        char *buf = NULL;
        size_t len = 0;
        ok(acs_scan_policy_pack(&p, "/run/acs/odd name=1.py", false, &buf, &len) == 0, "pack");
        ok(len > 0 && buf[len - 1] == '\0', "every string ends in NUL");
        is_str(buf, ACS_SCAN_POLICY_MAGIC, "starts with the magic");

        acs_scan_policy pol;
        ok(acs_scan_policy_unpack(buf, len, &pol) == 0, "unpack");
        is_str(pol.profile.name, "pure-math", "profile name");
        ok(pol.profile.scan_mode == ACS_SCAN_WARN, "mode warn");
        ok(pol.profile.max_source == 1048576, "max_source");
        is_str(pol.filename, "/run/acs/odd name=1.py", "file name with '=' and a space");
        ok(!pol.command, "kind file");
        ok(strv_eq(pol.profile.allow_imports, imports), "allow_imports in order");
        ok(strv_eq(pol.profile.deny_builtins, builtins), "deny_builtins");
        ok(strv_eq(pol.profile.deny_attributes, attrs), "deny_attributes, '=' in a value");
        ok(strv_eq(pol.profile.deny_members, members), "deny_members, globs kept");
        ok(pol.profile.python_flags == NULL && pol.profile.ro_bind == NULL, "nothing else is set");
        acs_scan_policy_done(&pol);
        free(buf);

        acs_profile empty = { .name = "x" };
        ok(acs_scan_policy_pack(&empty, NULL, true, &buf, &len) == 0, "pack with empty lists");
        ok(acs_scan_policy_unpack(buf, len, &pol) == 0, "unpack with empty lists");
        ok(pol.command && pol.profile.scan_mode == ACS_SCAN_ENFORCE && !pol.profile.allow_imports,
           "command, enforce, an empty allowlist stays empty (nothing allowed)");
        is_str(pol.filename, "<string>", "code is named <string>");
        acs_scan_policy_done(&pol);
        free(buf);
}

static void too_large(void)
{
        size_t n = ACS_SCAN_POLICY_MAX / 8 + 2;
        char **v = calloc(n + 1, sizeof *v);
        for (size_t i = 0; i < n; i++)
                v[i] = "abcdefgh";
        acs_profile p = { .name = "big", .deny_attributes = v };
        char *buf = NULL;
        size_t len = 0;
        ok(acs_scan_policy_pack(&p, "f", false, &buf, &len) == -E2BIG && !buf,
           "a policy over %d bytes is refused", ACS_SCAN_POLICY_MAX);
        free(v);
}

static void malformed(void)
{
        static const struct {
                const char *what;
                const char *bytes;
                size_t len;
        } bad[] = {
#define B(w, s) { w, s, sizeof s - 1 }
                B("empty", ""),
                B("wrong magic", "acs-scan-policy/2\0profile=x\0mode=enforce\0filename=f\0kind=file\0"),
                B("not NUL-terminated", "acs-scan-policy/1\0profile=x\0mode=enforce\0filename=f\0kind=file"),
                B("unknown key", "acs-scan-policy/1\0profile=x\0mode=enforce\0filename=f\0kind=file\0allow=os\0"),
                B("no '='", "acs-scan-policy/1\0profile=x\0mode=enforce\0filename=f\0kind=file\0junk\0"),
                B("bad mode", "acs-scan-policy/1\0profile=x\0mode=off\0filename=f\0kind=file\0"),
                B("bad kind", "acs-scan-policy/1\0profile=x\0mode=warn\0filename=f\0kind=stdin\0"),
                B("no mode", "acs-scan-policy/1\0profile=x\0filename=f\0kind=file\0"),
                B("no file name", "acs-scan-policy/1\0profile=x\0mode=warn\0kind=file\0"),
                B("bad number", "acs-scan-policy/1\0profile=x\0mode=warn\0filename=f\0kind=file\0max_source=1k\0"),
                B("overflow", "acs-scan-policy/1\0profile=x\0mode=warn\0filename=f\0kind=file\0max_source=99999999999999999999\0"),
#undef B
        };
        for (size_t i = 0; i < ELEMENTSOF(bad); i++) {
                acs_scan_policy pol = { .filename = (char *)"untouched" };
                ok(acs_scan_policy_unpack(bad[i].bytes, bad[i].len, &pol) == -EINVAL &&
                           strcmp(pol.filename, "untouched") == 0,
                   "malformed policy refused: %s", bad[i].what);
        }
}

int main(void)
{
        round_trip();
        too_large();
        malformed();
        return tap_done();
}
