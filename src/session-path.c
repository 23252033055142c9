/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* A session file's path as the client gave it (session-files.h). Pure. */
#include <string.h>

#include "session-files.h"

const char *acs_session_file_rel(const char *path, size_t len)
{
        static const char ws[] = "/workspace";
        if (!path || len == 0 || len > ACS_SESSION_PATH_MAX || memchr(path, '\0', len))
                return NULL;
        if (path[0] == '/') {
                if (strncmp(path, ws, sizeof ws - 1) != 0 || path[sizeof ws - 1] != '/')
                        return NULL; /* absolute, and not below /workspace */
                path += sizeof ws;
        }
        while (*path == '/')
                path++;
        size_t n = strlen(path);
        if (n == 0 || path[n - 1] == '/')
                return NULL; /* /workspace itself, or a directory */
        return path;
}

bool acs_session_text_ok(const char *s, size_t n)
{
        const unsigned char *p = (const unsigned char *)s, *end = p + n;
        while (p < end) {
                unsigned c = *p++, need, min;
                if (c < 0x80)
                        continue;
                if (c >= 0xc2 && c <= 0xdf)
                        need = 1, min = 0x80;
                else if (c >= 0xe0 && c <= 0xef)
                        need = 2, min = 0x800;
                else if (c >= 0xf0 && c <= 0xf4)
                        need = 3, min = 0x10000;
                else
                        return false;
                unsigned cp = c & (0x3fu >> need);
                if ((size_t)(end - p) < need)
                        return false;
                for (unsigned i = 0; i < need; i++, p++) {
                        if ((*p & 0xc0) != 0x80)
                                return false;
                        cp = cp << 6 | (*p & 0x3f);
                }
                if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
                        return false;
        }
        return true;
}
