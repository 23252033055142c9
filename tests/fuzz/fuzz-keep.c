/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * libFuzzer target: a kept layer's manifest (acs-keep.json) as `acs-launch
 * apply` loads it (acs_keep_load: schema, run_start, patch_sha256, the
 * changes, checked against tree/ and changes.patch). The input is written
 * as the manifest of a private keep directory holding a real kept layer's
 * tree and patch (tests/fuzz/keep-layer.patch; the seed corpus/keep/layer.json
 * is its manifest), so that a valid manifest reaches the checks against
 * the files. A refusal must say why.
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "diff.h"

static char dir[] = "/tmp/acs-fuzz-keep.XXXXXX";

static void cleanup(void)
{
        char cmd[sizeof dir + 16];

        snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
        if (system(cmd) != 0)
                fprintf(stderr, "fuzz-keep: could not remove %s\n", dir);
}

static void put(const char *name, const char *text, size_t len)
{
        char path[sizeof dir + 64];
        int fd;

        snprintf(path, sizeof path, "%s/%s", dir, name);
        fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
        if (fd < 0 || write(fd, text, len) != (ssize_t)len)
                abort();
        close(fd);
}

static void sub(const char *name)
{
        char path[sizeof dir + 64];

        snprintf(path, sizeof path, "%s/%s", dir, name);
        if (mkdir(path, 0700) < 0)
                abort();
}

/* The layer kept by: a.txt += "b", rm gone.txt, new.txt (0750), l2 -> new.txt, mkdir d/e */
int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
        char path[sizeof dir + 64], patch[4096];
        FILE *f;
        size_t n;

        if (!mkdtemp(dir))
                abort();
        atexit(cleanup);
        sub("tree");
        sub("tree/d");
        sub("tree/d/e");
        put("tree/a.txt", "a\nb\n", 4);
        put("tree/new.txt", "new\n", 4);
        snprintf(path, sizeof path, "%s/tree/l2", dir);
        if (symlink("new.txt", path) < 0)
                abort();
        if (!(f = fopen(ACS_ABS_SRCDIR "/tests/fuzz/keep-layer.patch", "re")))
                abort();
        n = fread(patch, 1, sizeof patch, f);
        fclose(f);
        put("changes.patch", patch, n);
        return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        acs_changes c = { 0 };
        acs_error err = { 0 };
        int tree = -1;

        put("acs-keep.json", (const char *)data, size);
        if (acs_keep_load(dir, &c, &tree, &err) >= 0) {
                close(tree);
                acs_changes_free(&c);
        } else if (!err.msg[0]) {
                abort();
        }
        return 0;
}
