/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scan-text.h"

/* Length of the valid UTF-8 sequence at p (1-4), or 0; *cp its code point. */
static size_t utf8_decode(const unsigned char *p, uint32_t *cp)
{
        static const uint32_t min[] = {0, 0, 0x80, 0x800, 0x10000};
        size_t n;
        uint32_t c;

        if (p[0] < 0x80) {
                *cp = p[0];
                return 1;
        }
        if (p[0] >= 0xc2 && p[0] <= 0xdf)
                n = 2, c = p[0] & 0x1f;
        else if (p[0] >= 0xe0 && p[0] <= 0xef)
                n = 3, c = p[0] & 0x0f;
        else if (p[0] >= 0xf0 && p[0] <= 0xf4)
                n = 4, c = p[0] & 0x07;
        else
                return 0;
        for (size_t i = 1; i < n; i++) {
                if ((p[i] & 0xc0) != 0x80) /* also stops at the NUL */
                        return 0;
                c = c << 6 | (p[i] & 0x3f);
        }
        if (c < min[n] || c > 0x10ffff || (c >= 0xd800 && c <= 0xdfff))
                return 0;
        *cp = c;
        return n;
}

/* Characters a terminal acts on, or that change how the text around them looks. */
static bool hidden(uint32_t c)
{
        return c < 0x20 || (c >= 0x7f && c < 0xa0) || c == 0x061c || (c >= 0x200b && c <= 0x200f) ||
               (c >= 0x2028 && c <= 0x202e) || (c >= 0x2060 && c <= 0x2069) || c == 0xfeff;
}

char *acs_scan_clean_text(const char *s, size_t max)
{
        static const char ellipsis[] = "\xe2\x80\xa6"; /* … */
        const unsigned char *p = (const unsigned char *)(s ? s : "");
        size_t n = 0, keep = 0;
        char *out;

        if (max < 4)
                max = 4;
        if (!(out = malloc(max + 1)))
                return NULL;
        while (*p) {
                char piece[8];
                size_t len;
                uint32_t c;
                size_t k = utf8_decode(p, &c);

                if (k == 0) {
                        len = (size_t)snprintf(piece, sizeof piece, "\\x%02x", *p);
                        k = 1;
                } else if (hidden(c)) {
                        len = (size_t)snprintf(piece, sizeof piece, c < 0x100 ? "\\x%02x" : "\\u%04x",
                                               (unsigned)c);
                } else {
                        memcpy(piece, p, k);
                        len = k;
                }
                if (n + len > max) {
                        /* cut after the last piece that left room for the ellipsis */
                        memcpy(out + keep, ellipsis, 3);
                        n = keep + 3;
                        break;
                }
                memcpy(out + n, piece, len);
                n += len;
                if (n + 3 <= max)
                        keep = n;
                p += k;
        }
        out[n] = '\0';
        return out;
}
