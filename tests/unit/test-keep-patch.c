/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* A kept layer's changes.patch held against its manifest (keep-patch.c). */
#include <string.h>

#include "../tap.h"
#include "keep-patch.h"

static char *blob(const char *s)
{
        static char b[8][41];
        static int n;
        char *r = b[n++ % 8];

        acs_git_blob_buf(s, strlen(s), r);
        return r;
}

static const char *Z = "0000000000000000000000000000000000000000";

/* The patch patch.c writes for the changes below. */
static char *make_patch(const char *new_content)
{
        char *p = NULL;

        if (asprintf(&p,
                     "diff --git \"a/odd\\tname\" \"b/odd\\tname\"\n"
                     "new file mode 120000\n"
                     "index %s..%s\n"
                     "--- /dev/null\n+++ \"b/odd\\tname\"\n@@ -0,0 +1 @@\n+target\n\\ No newline at end of file\n"
                     "diff --git a/a.txt b/a.txt\n"
                     "index %s..%s 100644\n"
                     "--- a/a.txt\n+++ b/a.txt\n@@ -1 +1,2 @@\n a\n+b\n"
                     "diff --git a/gone.txt b/gone.txt\n"
                     "deleted file mode 100644\n"
                     "index %s..%s\n"
                     "--- a/gone.txt\n+++ /dev/null\n@@ -1 +0,0 @@\n-gone\n"
                     "diff --git a/new.txt b/new.txt\n"
                     "new file mode 100644\n"
                     "index %s..%s\n"
                     "--- /dev/null\n+++ b/new.txt\n@@ -0,0 +1 @@\n+new\n"
                     "diff --git a/run.sh b/run.sh\n"
                     "old mode 100644\n"
                     "new mode 100755\n",
                     Z, blob("target"), blob("a\n"), blob("a\nb\n"), blob("gone\n"), Z, Z, blob(new_content)) < 0)
                return NULL;
        return p;
}

int main(void)
{
        _cleanup_free_ char *patch = make_patch("new\n");
        acs_patch_index x = {};
        const char *bad = NULL, *why = NULL;
        acs_change link = { .path = "odd\tname", .type = ACS_FT_SYMLINK, .target = "target", .mode = 0777 };
        acs_change mod = { .path = "a.txt", .type = ACS_FT_FILE, .old_type = ACS_FT_FILE, .mode = 0644,
                           .old_mode = 0644, .size = 4, .old_size = 2, .sha256 = "x", .old_sha256 = "y" };
        acs_change gone = { .path = "gone.txt", .old_type = ACS_FT_FILE, .old_mode = 0644 };
        acs_change add = { .path = "new.txt", .type = ACS_FT_FILE, .mode = 0600 };
        acs_change run = { .path = "run.sh", .type = ACS_FT_FILE, .old_type = ACS_FT_FILE, .mode = 0755,
                           .old_mode = 0644, .size = 3, .old_size = 3, .sha256 = "s", .old_sha256 = "s" };
        acs_change dir = { .path = "d", .type = ACS_FT_DIR, .mode = 0755 };
        acs_change chmod_only = { .path = "p.txt", .type = ACS_FT_FILE, .old_type = ACS_FT_FILE, .mode = 0600,
                                  .old_mode = 0644, .size = 1, .old_size = 1, .sha256 = "s", .old_sha256 = "s" };

        ok(acs_patch_index_parse(patch, strlen(patch), &x, &bad) == 0, "a patch acs-launch wrote parses");
        is_int(x.n, 5, "five records");
        acs_patch_index_sort(&x);
        ok(acs_patch_check_change(&x, &link, 'A', NULL, &why) == 0, "a new symlink (quoted name) is shown");
        ok(acs_patch_check_change(&x, &mod, 'M', blob("a\nb\n"), &why) == 0, "a modification is shown");
        is_str(mod.old_git, blob("a\n"), "the old blob id comes from the patch");
        ok(acs_patch_check_change(&x, &gone, 'D', NULL, &why) == 0, "a deletion is shown");
        is_str(gone.old_git, blob("gone\n"), "the deleted blob id comes from the patch");
        ok(acs_patch_check_change(&x, &add, 'A', blob("new\n"), &why) == 0, "an addition is shown");
        ok(acs_patch_check_change(&x, &run, 'M', NULL, &why) == 0, "an owner-x change is shown (old/new mode)");
        ok(acs_patch_check_change(&x, &dir, 'A', NULL, &why) == 0, "a directory is not in a patch");
        ok(acs_patch_check_change(&x, &chmod_only, 'M', NULL, &why) == 0, "a mode change git cannot say is not in it");
        ok(acs_patch_unused(&x) == NULL, "every record matched");
        acs_patch_index_done(&x);

        /* what the manifest says and the patch shows disagree */
        ok(acs_patch_index_parse(patch, strlen(patch), &x, &bad) == 0, "parse again");
        acs_patch_index_sort(&x);
        int r = acs_patch_check_change(&x, &add, 'A', blob("evil\n"), &why);
        ok(r < 0, "other content is refused: %s", why);
        acs_change extra = { .path = "evil.txt", .type = ACS_FT_FILE, .mode = 0644 };
        r = acs_patch_check_change(&x, &extra, 'A', blob("evil\n"), &why);
        ok(r < 0, "a change the patch does not show: %s", why);
        acs_change exec = add;
        exec.mode = 0755;
        r = acs_patch_check_change(&x, &exec, 'A', blob("new\n"), &why);
        ok(r < 0, "another mode is refused: %s", why);
        acs_change dirlink = { .path = "a.txt", .type = ACS_FT_DIR, .old_type = ACS_FT_FILE };
        r = acs_patch_check_change(&x, &dirlink, 'M', NULL, &why);
        ok(r < 0, "another type is refused: %s", why);
        ok(acs_patch_unused(&x) != NULL, "records no change matched are found");
        acs_patch_index_done(&x);

        static const char *const bad_patches[] = {
                "garbage\ndiff --git a/x b/x\n",
                "diff --git a/x b/y\nnew file mode 100644\n",
                "diff --git a/x b/x\nnew file mode 100600\n",
                "diff --git a/x b/x\nindex 12..34 100644\n",
                "diff --git \"a/x b/x\n",
        };
        for (size_t i = 0; i < ELEMENTSOF(bad_patches); i++)
                ok(acs_patch_index_parse(bad_patches[i], strlen(bad_patches[i]), &x, &bad) == -EBADMSG && bad,
                   "not a patch acs-launch wrote (%zu)", i);
        ok(acs_patch_index_parse("", 0, &x, &bad) == 0 && x.n == 0, "an empty patch has no records");
        return tap_done();
}
