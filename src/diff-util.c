/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Pure helpers of the diff: glob matching, byte escaping, git path quoting. */
#include <string.h>
#include <sys/stat.h>

#include "apply-policy.h"
#include "diff.h"

/* One bracket expression at p (just after '['); sets *ok and returns the
 * pointer past ']' or NULL when the class is not closed (then '[' is literal). */
static const char *match_class(const char *p, unsigned char c, bool *ok)
{
        bool neg = false, hit = false;

        if (*p == '!' || *p == '^') {
                neg = true;
                p++;
        }
        for (bool first = true; *p && (first || *p != ']'); first = false) {
                unsigned char lo = (unsigned char)*p, hi;

                if (lo == '\\' && p[1])
                        lo = (unsigned char)*++p;
                p++;
                hi = lo;
                if (*p == '-' && p[1] && p[1] != ']') {
                        p++;
                        if (*p == '\\' && p[1])
                                p++;
                        hi = (unsigned char)*p++;
                }
                if (c >= lo && c <= hi)
                        hit = true;
        }
        if (*p != ']')
                return NULL;
        *ok = c != '/' && hit != neg;
        return p + 1;
}

static bool glob_at(const char *pat, const char *p, const char *s)
{
        while (*p) {
                bool at_component_start = p == pat || p[-1] == '/';

                if (p[0] == '*' && p[1] == '*' && at_component_start && (p[2] == '/' || !p[2])) {
                        if (!p[2])
                                return true; /* "dir/" + "**": everything below */
                        /* "**" "/": zero or more whole directories */
                        for (const char *t = s;; t++) {
                                if ((t == s || t[-1] == '/') && glob_at(pat, p + 3, t))
                                        return true;
                                if (!*t)
                                        return false;
                        }
                }
                switch (*p) {
                case '*':
                        while (*p == '*')
                                p++;
                        for (const char *t = s;; t++) {
                                if (glob_at(pat, p, t))
                                        return true;
                                if (!*t || *t == '/')
                                        return false;
                        }
                case '?':
                        if (!*s || *s == '/')
                                return false;
                        p++, s++;
                        continue;
                case '[': {
                        bool ok = false;
                        const char *q;

                        if (!*s)
                                return false;
                        q = match_class(p + 1, (unsigned char)*s, &ok);
                        if (q) {
                                if (!ok)
                                        return false;
                                p = q, s++;
                                continue;
                        }
                        break; /* unclosed: literal '[' */
                }
                case '\\':
                        if (p[1])
                                p++;
                        break;
                }
                if (*p != *s)
                        return false;
                p++, s++;
        }
        return !*s;
}

bool acs_glob_match(const char *pattern, const char *path)
{
        if (!pattern || !path)
                return false;
        return glob_at(pattern, pattern, path);
}

bool acs_glob_protected(char *const *globs, const char *path)
{
        acs_globset g = {};
        _cleanup_free_ char *folded = NULL;
        bool hit;

        if (!globs || !path)
                return false;
        if (acs_globset_compile(globs, &g) < 0 || !(folded = acs_fold_path(path))) {
                acs_globset_done(&g);
                return true; /* fail closed */
        }
        hit = acs_globset_match(&g, folded) != NULL;
        acs_globset_done(&g);
        return hit;
}

/* Length of the valid UTF-8 sequence at s (1..4), or 0 when invalid. */
static size_t utf8_seq(const unsigned char *s, size_t n)
{
        uint32_t cp;
        size_t len;

        if (s[0] < 0x80)
                return 1;
        if (s[0] >= 0xc2 && s[0] <= 0xdf)
                len = 2, cp = s[0] & 0x1f;
        else if (s[0] >= 0xe0 && s[0] <= 0xef)
                len = 3, cp = s[0] & 0x0f;
        else if (s[0] >= 0xf0 && s[0] <= 0xf4)
                len = 4, cp = s[0] & 0x07;
        else
                return 0;
        if (len > n)
                return 0;
        for (size_t i = 1; i < len; i++) {
                if ((s[i] & 0xc0) != 0x80)
                        return 0;
                cp = (cp << 6) | (s[i] & 0x3f);
        }
        /* overlong forms, surrogates, beyond U+10FFFF */
        if ((len == 3 && cp < 0x800) || (len == 4 && (cp < 0x10000 || cp > 0x10ffff)) ||
            (cp >= 0xd800 && cp <= 0xdfff))
                return 0;
        return len;
}

char *acs_escape_bytes(const char *s, size_t n, bool *escaped)
{
        const unsigned char *u = (const unsigned char *)s;
        bool valid = true;
        char *out, *o;

        for (size_t i = 0, l; i < n; i += l)
                if (!(l = utf8_seq(u + i, n - i)) || u[i] == 0) {
                        valid = false;
                        break;
                }
        if (escaped)
                *escaped = !valid;
        if (valid) {
                out = malloc(n + 1);
                if (!out)
                        return NULL;
                memcpy(out, s, n);
                out[n] = 0;
                return out;
        }
        out = o = malloc(4 * n + 1);
        if (!out)
                return NULL;
        for (size_t i = 0, l; i < n; i += l) {
                l = u[i] ? utf8_seq(u + i, n - i) : 0;
                if (l == 1 && u[i] == '\\') {
                        *o++ = '\\', *o++ = '\\';
                } else if (l) {
                        memcpy(o, s + i, l);
                        o += l;
                } else {
                        static const char hex[] = "0123456789abcdef";

                        *o++ = '\\', *o++ = 'x', *o++ = hex[u[i] >> 4], *o++ = hex[u[i] & 15];
                        l = 1;
                }
        }
        *o = 0;
        return out;
}

static bool bytes_valid(const unsigned char *u, size_t n)
{
        for (size_t i = 0, l; i < n; i += l)
                if (!u[i] || !(l = utf8_seq(u + i, n - i)))
                        return false;
        return true;
}

/* What json-c writes for one ASCII character of a string (no slash escaping). */
static size_t json_char_cost(unsigned char c)
{
        switch (c) {
        case '\b':
        case '\n':
        case '\r':
        case '\t':
        case '\f':
        case '"':
        case '\\':
                return 2;
        }
        return c < 0x20 ? 6 : 1; /* "\u00NN" */
}

static size_t json_cost(const unsigned char *u, size_t n, bool escaped)
{
        size_t total = 0;

        for (size_t i = 0, l; i < n; i += l) {
                l = u[i] ? utf8_seq(u + i, n - i) : 0;
                if (!l) {
                        total += 5; /* "\xNN", its backslash escaped again */
                        l = 1;
                } else if (l > 1) {
                        total += l;
                } else {
                        total += u[i] == '\\' && escaped ? 4 : json_char_cost(u[i]);
                }
        }
        return total;
}

size_t acs_json_cost(const char *s, size_t n, bool *ret_escaped)
{
        bool escaped = !bytes_valid((const unsigned char *)s, n);

        if (ret_escaped)
                *ret_escaped = escaped;
        return json_cost((const unsigned char *)s, n, escaped);
}

size_t acs_json_cost_max(const char *s, size_t n)
{
        /* escaped costs at least as much as valid; a sequence cut at the
         * piece's edge counts as invalid bytes, which cost more than it */
        return json_cost((const unsigned char *)s, n, true);
}

static int hexval(char c)
{
        if (c >= '0' && c <= '9')
                return c - '0';
        if (c >= 'a' && c <= 'f')
                return c - 'a' + 10;
        if (c >= 'A' && c <= 'F')
                return c - 'A' + 10;
        return -1;
}

char *acs_unescape_bytes(const char *s, size_t *ret_len)
{
        size_t n = strlen(s);
        char *out = malloc(n + 1), *o = out;

        if (!out)
                return NULL;
        for (size_t i = 0; i < n; i++) {
                if (s[i] != '\\') {
                        *o++ = s[i];
                        continue;
                }
                if (s[i + 1] == '\\') {
                        *o++ = '\\';
                        i++;
                } else if (s[i + 1] == 'x' && hexval(s[i + 2]) >= 0 && hexval(s[i + 3]) >= 0 &&
                           (hexval(s[i + 2]) << 4 | hexval(s[i + 3])) != 0) {
                        *o++ = (char)(hexval(s[i + 2]) << 4 | hexval(s[i + 3]));
                        i += 3;
                } else {
                        free(out);
                        return NULL;
                }
        }
        *o = 0;
        if (ret_len)
                *ret_len = (size_t)(o - out);
        return out;
}

char *acs_quote_c(const char *s, size_t n)
{
        const unsigned char *u = (const unsigned char *)s;
        bool need = false;
        char *out, *o;

        for (size_t i = 0; i < n; i++)
                if (u[i] < 0x20 || u[i] >= 0x7f || u[i] == '"' || u[i] == '\\')
                        need = true;
        out = o = malloc(need ? 4 * n + 3 : n + 1);
        if (!out)
                return NULL;
        if (!need) {
                memcpy(out, s, n);
                out[n] = 0;
                return out;
        }
        *o++ = '"';
        for (size_t i = 0; i < n; i++) {
                static const char esc_from[] = "\a\b\t\n\v\f\r\"\\", esc_to[] = "abtnvfr\"\\";
                const char *e = u[i] ? strchr(esc_from, u[i]) : NULL;

                if (e) {
                        *o++ = '\\';
                        *o++ = esc_to[e - esc_from];
                } else if (u[i] < 0x20 || u[i] >= 0x7f) {
                        *o++ = '\\';
                        *o++ = (char)('0' + (u[i] >> 6));
                        *o++ = (char)('0' + ((u[i] >> 3) & 7));
                        *o++ = (char)('0' + (u[i] & 7));
                } else {
                        *o++ = (char)u[i];
                }
        }
        *o++ = '"';
        *o = 0;
        return out;
}

char acs_change_op(const acs_change *ch, char list)
{
        if (list != 'M')
                return list;
        if (ch->type != ch->old_type)
                return 'T';
        if (ch->type == ACS_FT_DIR ||
            (ch->type == ACS_FT_FILE && ch->size == ch->old_size && strcmp(ch->sha256, ch->old_sha256) == 0) ||
            (ch->type == ACS_FT_SYMLINK && ch->target && ch->old_target && strcmp(ch->target, ch->old_target) == 0) ||
            ((ch->type == ACS_FT_CHAR || ch->type == ACS_FT_BLOCK || ch->type == ACS_FT_FIFO ||
              ch->type == ACS_FT_SOCKET) && ch->size == ch->old_size))
                return ch->mode != ch->old_mode ? 'P' : 'M';
        return 'M';
}

static const char *const ftype_names[] = {
        [ACS_FT_NONE] = "none",       [ACS_FT_FILE] = "file", [ACS_FT_DIR] = "dir",
        [ACS_FT_SYMLINK] = "symlink", [ACS_FT_FIFO] = "fifo", [ACS_FT_SOCKET] = "socket",
        [ACS_FT_CHAR] = "char",       [ACS_FT_BLOCK] = "block",
};

const char *acs_ftype_to_string(acs_ftype t)
{
        if ((size_t)t >= ELEMENTSOF(ftype_names))
                return "unknown";
        return ftype_names[t];
}

acs_ftype acs_ftype_from_string(const char *s)
{
        for (size_t i = 0; s && i < ELEMENTSOF(ftype_names); i++)
                if (strcmp(s, ftype_names[i]) == 0)
                        return (acs_ftype)i;
        return ACS_FT_NONE;
}

acs_ftype acs_ftype_from_mode(uint32_t m)
{
        switch (m & S_IFMT) {
        case S_IFREG:
                return ACS_FT_FILE;
        case S_IFDIR:
                return ACS_FT_DIR;
        case S_IFLNK:
                return ACS_FT_SYMLINK;
        case S_IFIFO:
                return ACS_FT_FIFO;
        case S_IFSOCK:
                return ACS_FT_SOCKET;
        case S_IFCHR:
                return ACS_FT_CHAR;
        case S_IFBLK:
                return ACS_FT_BLOCK;
        }
        return ACS_FT_NONE;
}
