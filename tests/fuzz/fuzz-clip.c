/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * libFuzzer target: the token shield (src/clip*.c, src/ansi.c). The first
 * four bytes choose the budget, ANSI stripping and the chunk size; the rest
 * is split at its first 0xff byte into what the program wrote on stdout and
 * on stderr, fed interleaved. Checked besides memory safety: the live head
 * never passes more than it was given, the kept text is valid UTF-8 and
 * NUL-terminated at the length reported, and bytes counts what was fed.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "clip.h"
#include "report.h"

static bool utf8_valid(const unsigned char *s, size_t n)
{
        for (size_t i = 0; i < n;) {
                unsigned c = s[i], k;
                uint32_t cp;
                if (c < 0x80) {
                        i++;
                        continue;
                }
                if (c >= 0xc2 && c <= 0xdf) k = 1, cp = c & 0x1f;
                else if (c >= 0xe0 && c <= 0xef) k = 2, cp = c & 0x0f;
                else if (c >= 0xf0 && c <= 0xf4) k = 3, cp = c & 0x07;
                else return false;
                for (unsigned j = 1; j <= k; j++) {
                        if (i + j >= n || (s[i + j] & 0xc0) != 0x80)
                                return false;
                        cp = cp << 6 | (s[i + j] & 0x3f);
                }
                if ((k == 2 && cp < 0x800) || (k == 3 && (cp < 0x10000 || cp > 0x10ffff)) ||
                    (cp >= 0xd800 && cp <= 0xdfff))
                        return false;
                i += k + 1;
        }
        return true;
}

static void check_stream(const acs_stream_result *r, uint64_t fed)
{
        if (r->bytes != fed)
                abort();
        /* a NUL the program wrote is kept (U+0000 is UTF-8; the report uses text_len) */
        if (r->text && (r->text[r->text_len] != '\0' || !utf8_valid((const unsigned char *)r->text, r->text_len)))
                abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        acs_report rep = { 0 };
        const uint8_t *sep;
        const char *b[2];
        size_t len[2], off[2] = { 0, 0 }, chunk;
        uint64_t tokens;
        acs_shield *s;
        bool strip;

        if (size < 4)
                return 0;
        tokens = (uint64_t)data[0] << 8 | data[1]; /* 0..65535: small budgets clip often */
        strip = data[2] & 1;
        chunk = 1 + data[3] % 64;
        data += 4, size -= 4;
        sep = memchr(data, 0xff, size);
        b[0] = (const char *)data, len[0] = sep ? (size_t)(sep - data) : size;
        b[1] = sep ? (const char *)sep + 1 : "", len[1] = sep ? size - len[0] - 1 : 0;

        if (!(s = acs_shield_new(tokens, strip)))
                return 0;
        while (off[0] < len[0] || off[1] < len[1])
                for (int i = 0; i < 2; i++) {
                        size_t n = len[i] - off[i] < chunk ? len[i] - off[i] : chunk;
                        if (!n)
                                continue;
                        if (acs_shield_feed(s, i, b[i] + off[i], n) > n)
                                abort();
                        off[i] += n;
                }
        if (acs_shield_finish(s, &rep.out, &rep.err) == 0) {
                check_stream(&rep.out, len[0]);
                check_stream(&rep.err, len[1]);
                for (int i = 0; i < 2; i++) {
                        size_t el = 0;
                        free(acs_shield_epilogue(s, i, &el));
                }
        }
        acs_shield_free(s);
        acs_report_done(&rep);
        return 0;
}
