/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The shared helpers of common.c: read-all (over pipes and memory files), the
 * string buffer, the path of a sibling binary. */
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../tap.h"
#include "common.h"

/* A pipe whose writer (a child) sends n bytes of pattern, then closes. */
static int pipe_of(size_t n)
{
        int p[2];
        if (pipe2(p, O_CLOEXEC) < 0)
                return -1;
        pid_t pid = fork();
        if (pid == 0) {
                char chunk[1000];
                for (size_t i = 0; i < sizeof chunk; i++)
                        chunk[i] = (char)('a' + i % 26);
                close(p[0]);
                for (size_t off = 0; off < n;) {
                        size_t k = n - off < sizeof chunk ? n - off : sizeof chunk;
                        /* small writes: the reader sees many short reads */
                        if (write(p[1], chunk, k) != (ssize_t)k)
                                _exit(1);
                        off += k;
                }
                _exit(0);
        }
        close(p[1]);
        return p[0];
}

static int memfd_of(size_t n)
{
        int fd = memfd_create("t", MFD_CLOEXEC);
        for (size_t i = 0; i < n; i++)
                if (write(fd, &(char){ (char)('a' + i % 1000 % 26) }, 1) != 1)
                        return -1;
        lseek(fd, 0, SEEK_SET);
        return fd;
}

static bool pattern(const char *b, size_t n)
{
        for (size_t i = 0; i < n; i++)
                if (b[i] != (char)('a' + i % 1000 % 26))
                        return false;
        return b[n] == '\0';
}

static void test_read_all(void)
{
        static const struct {
                size_t size, max, want;
                bool pipe;
        } cases[] = {
                { 0, 100, 0, true },          { 0, 100, 0, false },
                { 5000, 100000, 5000, true }, { 5000, 100000, 5000, false },
                { 5000, 5000, 5000, true },   { 5000, 5000, 5000, false },
                { 5000, 5001, 5000, true },   { 5000, 5001, 5000, false },
                { 5000, 100, 100, true },     { 5000, 100, 100, false },
                { 300000, SIZE_MAX, 300000, true }, { 300000, SIZE_MAX, 300000, false },
                { 10, 0, 0, true },
        };
        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                int fd = cases[i].pipe ? pipe_of(cases[i].size) : memfd_of(cases[i].size);
                _cleanup_free_ char *buf = NULL;
                size_t len = 12345;
                int r = acs_read_all(fd, cases[i].max, &buf, &len);
                ok(r == 0 && len == cases[i].want && buf && pattern(buf, len),
                   "read_all: %zu bytes from a %s, max %zu: %zu, NUL-terminated (r=%d, len=%zu)",
                   cases[i].size, cases[i].pipe ? "pipe" : "file", cases[i].max, cases[i].want, r, len);
                close(fd);
                while (waitpid(-1, NULL, 0) > 0)
                        ;
        }

        char *buf = (char *)"untouched";
        size_t len = 7;
        int fd = open("/", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        ok(acs_read_all(fd, 100, &buf, &len) == -EISDIR && len == 7 && strcmp(buf, "untouched") == 0,
           "read_all: an error is -errno and leaves the out-parameters alone");
        close(fd);
        ok(acs_read_all(-1, 100, &buf, &len) == -EBADF, "read_all: a bad fd is -EBADF");
}

static void test_strbuf(void)
{
        _cleanup_strbuf_ acs_strbuf b = {};
        ok(acs_strbuf_add(&b, "", 0) == 0 && b.p == NULL && b.len == 0,
           "strbuf: adding nothing allocates nothing");
        ok(acs_strbuf_reserve(&b, 0) == 0 && b.p && b.p[0] == '\0' && b.len == 0,
           "strbuf: a reserved buffer is an empty string");
        ok(acs_strbuf_add(&b, "ab", 2) == 0 && acs_strbuf_addf(&b, "-%d-%s", 42, "x") == 0,
           "strbuf: add and addf");
        is_str(b.p, "ab-42-x", "strbuf: NUL-terminated text");
        is_int(b.len, 7, "strbuf: its length");
        ok(acs_strbuf_addf(&b, "%s", "") == 0 && b.len == 7, "strbuf: an empty format adds nothing");

        /* binary bytes, and growth across many doublings */
        acs_strbuf_free(&b);
        ok(b.p == NULL && b.len == 0 && b.cap == 0, "strbuf: free leaves a zeroed buffer");
        bool same = true;
        for (unsigned i = 0; i < 100000; i++) {
                char c = (char)(i % 251);
                same &= acs_strbuf_add(&b, &c, 1) == 0;
        }
        for (unsigned i = 0; i < 100000 && same; i++)
                same = b.p[i] == (char)(i % 251);
        ok(same && b.len == 100000 && b.cap > b.len && b.p[b.len] == '\0',
           "strbuf: 100000 single bytes, NUL included, kept in order");

        size_t cap = b.cap, len = b.len;
        ok(acs_strbuf_reserve(&b, SIZE_MAX - 8) == -ENOMEM && b.cap == cap && b.len == len,
           "strbuf: an impossible size is -ENOMEM and leaves the buffer as it was");
        ok(acs_strbuf_reserve(&b, cap - len - 1) == 0 && b.cap == cap,
           "strbuf: a reserve that fits does not grow");
        ok(acs_strbuf_reserve(&b, cap - len) == 0 && b.cap > cap, "strbuf: one byte more does (the NUL counts)");
}

static void test_sibling(void)
{
        static const struct {
                const char *exe, *name, *want;
                size_t size;
                int r;
        } cases[] = {
                { "/usr/bin/acs-launch", "acs-launch-full", "/usr/bin/acs-launch-full", 64, 0 },
                { "/b/.libs/acs-launch", "x", "/b/.libs/x", 64, 0 },
                { "/acs-launch", "acs-launch-full", "/acs-launch-full", 64, 0 },
                { "/b/acs-launch", "", "/b/", 64, 0 },
                { "acs-launch", "x", NULL, 64, -EINVAL },
                { "/a/b", "0123456789", "/a/0123456789", 14, 0 },
                { "/a/b", "0123456789", NULL, 13, -ENAMETOOLONG }, /* 13 bytes and the NUL */
        };
        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                char buf[64] = "";
                int r = acs_sibling_of(cases[i].exe, cases[i].name, buf, cases[i].size);
                ok(r == cases[i].r && (r < 0 || strcmp(buf, cases[i].want) == 0),
                   "sibling of %s named '%s': %s (r=%d, got '%s')", cases[i].exe, cases[i].name,
                   cases[i].want ? cases[i].want : "an error", r, r < 0 ? "" : buf);
        }

        char self[PATH_MAX], want[PATH_MAX], sib[PATH_MAX];
        ok(acs_self_exe(self, sizeof self) == 0 && realpath("/proc/self/exe", want) && strcmp(self, want) == 0,
           "self: /proc/self/exe (%s)", self);
        ok(acs_self_exe(self, 4) == -ENAMETOOLONG, "self: a buffer too small is -ENAMETOOLONG, not a cut path");
        char *slash = strrchr(want, '/');
        strcpy(slash + 1, "acs-launch-full");
        ok(acs_self_sibling("acs-launch-full", sib, sizeof sib) == 0 && strcmp(sib, want) == 0,
           "self: the sibling's path is %s", want);
}

int main(void)
{
        test_read_all();
        test_strbuf();
        test_sibling();
        return tap_done();
}
