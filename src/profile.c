/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Profiles: inih turns the text into (section, key, value) calls; this file
 * collects them with their line numbers, resolves `inherit` through a
 * reader callback (so parsing stays pure) and applies the values through the
 * key table. The loader at the bottom is the only part that touches files.
 */
#include <ctype.h>
#include <dirent.h>
#include <fcntl.h>
#include <ini.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "profile-keys.h"
#include "profile.h"

#define MAX_INHERIT_DEPTH 8
#define MAX_PROFILE_SIZE (1024 * 1024)

typedef struct entry {
        const acs_profile_key *key;
        acs_key_op op;
        int line;
        char *value;
} entry;

typedef struct parse_state {
        const char *filename;
        const char *text; /* whole text, for quoting a syntax error's line */
        const char *pos;  /* the reader's position */
        int line;         /* number of the line inih is working on */
        bool indented;    /* that line starts with white space */
        entry *entries;
        size_t n_entries;
        ssize_t prev;     /* entry the last handler call added to, or -1 */
        char prev_section[64], prev_name[64];
        int err_line;     /* first error, 0 = none */
        bool nomem;
        acs_error *err;
} parse_state;

static void entries_free(entry *e, size_t n)
{
        for (size_t i = 0; i < n; i++)
                free(e[i].value);
        free(e);
}

static int fail_at(parse_state *st, int line, const char *fmt, ...) _printf_(3, 4);
static int fail_at(parse_state *st, int line, const char *fmt, ...)
{
        char msg[900];
        va_list ap;

        if (st->err_line)
                return -EINVAL; /* keep the first error */
        va_start(ap, fmt);
        vsnprintf(msg, sizeof msg, fmt, ap);
        va_end(ap);
        st->err_line = line;
        if (st->err)
                st->err->exit_status = 125;
        return acs_error_set(st->err, -EINVAL, "profile", "%s:%d: %s", st->filename, line, msg);
}

static size_t suggest_threshold(const char *word)
{
        size_t n = strlen(word);
        return n < 4 ? 1 : n < 9 ? 2 : 3;
}

static const char *nearest_section(const char *word)
{
        const char *best = NULL;
        size_t best_d = suggest_threshold(word) + 1;
        for (size_t i = 0; i < acs_profile_n_sections; i++) {
                size_t d = acs_edit_distance(word, acs_profile_section_table[i].name);
                if (d < best_d) {
                        best_d = d;
                        best = acs_profile_section_table[i].name;
                }
        }
        return best;
}

/* Nearest key in section, or (other_section set) the same or a near key elsewhere. */
static const acs_profile_key *nearest_key(const char *section, const char *word)
{
        const acs_profile_key *best = NULL;
        size_t best_d = suggest_threshold(word) + 1;
        for (int pass = 0; pass < 2 && !best; pass++)
                for (size_t i = 0; i < acs_profile_n_keys; i++) {
                        const acs_profile_key *k = &acs_profile_key_table[i];
                        if ((strcmp(k->section, section) == 0) != (pass == 0))
                                continue;
                        size_t d = acs_edit_distance(word, k->key);
                        if (d < best_d) {
                                best_d = d;
                                best = k;
                        }
                }
        return best;
}

static void keys_of_section(const char *section, char *buf, size_t size)
{
        size_t n = 0;
        buf[0] = '\0';
        for (size_t i = 0; i < acs_profile_n_keys && n < size; i++)
                if (strcmp(acs_profile_key_table[i].section, section) == 0)
                        n += snprintf(buf + n, size - n, "%s%s", n ? ", " : "",
                                      acs_profile_key_table[i].key);
}

static void section_list(char *buf, size_t size)
{
        size_t n = 0;
        buf[0] = '\0';
        for (size_t i = 0; i < acs_profile_n_sections && n < size; i++)
                n += snprintf(buf + n, size - n, "%s[%s]", i ? " " : "",
                              acs_profile_section_table[i].name);
}

static int fail_unknown_section(parse_state *st, const char *section)
{
        const char *near = nearest_section(section);
        char all[256];
        if (near)
                return fail_at(st, st->line, "[%s]: unknown section; did you mean '[%s]'?", section,
                               near);
        section_list(all, sizeof all);
        return fail_at(st, st->line, "[%s]: unknown section, expected one of %s", section, all);
}

static int fail_unknown_key(parse_state *st, const char *section, const char *name)
{
        const acs_profile_key *near = nearest_key(section, name);
        char keys[512];

        if (near && strcmp(near->section, section) == 0)
                return fail_at(st, st->line, "[%s] %s: unknown key; did you mean '%s'?", section,
                               name, near->key);
        if (near)
                return fail_at(st, st->line,
                               "[%s] %s: unknown key in this section; did you mean '%s' in [%s]?",
                               section, name, near->key, near->section);
        keys_of_section(section, keys, sizeof keys);
        return fail_at(st, st->line, "[%s] %s: unknown key, expected one of %s", section, name,
                       keys);
}

/* inih's fgets-style reader: one line per call, so inih's line count is ours. */
static char *state_reader(char *buf, int num, void *stream)
{
        parse_state *st = stream;
        if (!*st->pos)
                return NULL;

        const char *line = st->pos;
        size_t n = strcspn(line, "\n");
        bool nl = line[n] == '\n';
        st->pos += n + nl;
        st->line++;

        /* inih would silently cut a longer line in two; refuse it instead. */
        size_t max = num > 2 ? (size_t)num - 2 : 0;
        if (n > max) {
                fail_at(st, st->line,
                        "line is longer than %zu characters; continue a long list on indented "
                        "lines below the key",
                        max);
                n = 0;
        }
        memcpy(buf, line, n);
        buf[n] = nl ? '\n' : '\0';
        buf[n + nl] = '\0';
        st->indented = n > 0 && (line[0] == ' ' || line[0] == '\t');

        /*
         * Section headers are checked here because inih reports a section
         * only through its keys: an empty misspelt section would pass.
         */
        const char *s = line;
        if (st->line == 1 && n >= 3 && memcmp(s, "\xEF\xBB\xBF", 3) == 0)
                s += 3;
        if (!st->indented && *s == '[') {
                size_t len = strcspn(s + 1, "]\n");
                if (s[1 + len] == ']' && len < 64) {
                        char name[64];
                        memcpy(name, s + 1, len);
                        name[len] = '\0';
                        if (!acs_profile_section_known(name))
                                fail_unknown_section(st, name);
                }
        }
        return buf;
}

static int add_continuation(parse_state *st, const char *value)
{
        entry *e = &st->entries[st->prev];
        if (!acs_key_is_list(e->key) && e->key->type != ACS_KEY_STRING)
                return fail_at(st, st->line,
                               "[%s] %s: expected one value; only lists and text continue on "
                               "indented lines (got '%s')",
                               e->key->section, e->key->key, value);
        char *joined;
        if (asprintf(&joined, "%s%s%s", e->value, *e->value ? " " : "", value) < 0)
                return -ENOMEM;
        free(e->value);
        e->value = joined;
        return 0;
}

static int ini_handler_cb(void *user, const char *section, const char *name, const char *value)
{
        parse_state *st = user;
        char key[64];

        if (st->err_line)
                return 1; /* only the first error is reported */

        if (st->indented && st->prev >= 0 && strcmp(section, st->prev_section) == 0 &&
            strcmp(name, st->prev_name) == 0)
        {
                if (add_continuation(st, value) == -ENOMEM)
                        st->nomem = true;
                return 1;
        }

        st->prev = -1;
        if (!*section) {
                fail_at(st, st->line, "%s: expected a [section] line before the first key", name);
                return 1;
        }
        if (!acs_profile_section_known(section)) {
                fail_unknown_section(st, section);
                return 1;
        }

        /* "key += v" and "key -= v" arrive as names "key +" and "key -". */
        acs_key_op op = ACS_OP_SET;
        size_t len = strlen(name);
        if (len > 0 && (name[len - 1] == '+' || name[len - 1] == '-')) {
                op = name[len - 1] == '+' ? ACS_OP_APPEND : ACS_OP_REMOVE;
                len--;
                while (len > 0 && isspace((unsigned char)name[len - 1]))
                        len--;
        }
        if (len >= sizeof key) {
                fail_at(st, st->line, "[%s] %.64s...: unknown key", section, name);
                return 1;
        }
        memcpy(key, name, len);
        key[len] = '\0';

        const acs_profile_key *k = acs_profile_key_find(section, key);
        if (!k) {
                fail_unknown_key(st, section, key);
                return 1;
        }
        if (op != ACS_OP_SET && !acs_key_is_list(k)) {
                fail_at(st, st->line, "[%s] %s: expected '=', only list keys take += and -=",
                        section, key);
                return 1;
        }
        for (size_t i = 0; i < st->n_entries; i++)
                if (st->entries[i].key == k && op == ACS_OP_SET && st->entries[i].op == ACS_OP_SET) {
                        fail_at(st, st->line,
                                "[%s] %s: set twice (first on line %d); put all values on one "
                                "line or on indented lines below it",
                                section, key, st->entries[i].line);
                        return 1;
                }

        entry *ne = realloc(st->entries, (st->n_entries + 1) * sizeof *ne);
        char *v = ne ? strdup(value ? value : "") : NULL;
        if (ne)
                st->entries = ne;
        if (!v) {
                st->nomem = true;
                return 1;
        }
        st->entries[st->n_entries] = (entry){ .key = k, .op = op, .line = st->line, .value = v };
        st->prev = (ssize_t)st->n_entries++;
        snprintf(st->prev_section, sizeof st->prev_section, "%s", section);
        snprintf(st->prev_name, sizeof st->prev_name, "%s", name);
        return 1;
}

static void quote_line(const char *text, int line, char *buf, size_t size)
{
        const char *p = text;
        for (int i = 1; i < line && p; i++) {
                p = strchr(p, '\n');
                if (p)
                        p++;
        }
        if (!p) {
                buf[0] = '\0';
                return;
        }
        p += strspn(p, " \t");
        size_t n = strcspn(p, "\r\n");
        snprintf(buf, size, "%.*s", (int)(n < 80 ? n : 80), p);
}

static int collect(parse_state *st)
{
        int r = ini_parse_stream(state_reader, st, ini_handler_cb, st);
        if (r < 0 || st->nomem)
                return acs_error_set(st->err, -ENOMEM, "profile", "%s: out of memory",
                                     st->filename);
        if (r > 0 && (!st->err_line || r < st->err_line)) {
                char got[96];
                quote_line(st->text, r, got, sizeof got);
                st->err_line = 0; /* an earlier syntax error wins over a later one */
                return fail_at(st, r,
                               "syntax error: expected '[section]', 'key = value' or an "
                               "indented continuation line (got '%s')",
                               got);
        }
        return st->err_line ? -EINVAL : 0;
}

static bool is_path_ref(const char *s)
{
        size_t n = strlen(s);
        return strchr(s, '/') || (n >= 4 && strcmp(s + n - 4, ".ini") == 0);
}

typedef struct chain {
        const char *ids[MAX_INHERIT_DEPTH + 1];
        size_t n;
} chain;

static int build(const char *text, const char *filename, const char *name, chain *ch,
                 acs_profile_reader reader, void *userdata, acs_profile **ret, acs_error *err);

/* Reads and builds the parent named by an `inherit` entry. */
static int build_parent(parse_state *st, const entry *e, chain *ch, acs_profile_reader reader,
                        void *userdata, acs_profile **ret)
{
        _cleanup_free_ char *ref = NULL, *ptext = NULL, *ppath = NULL;
        const char *slash = strrchr(st->filename, '/');

        /* A relative PATH is relative to the file that names it. */
        if (is_path_ref(e->value) && e->value[0] != '/' && slash) {
                if (asprintf(&ref, "%.*s/%s", (int)(slash - st->filename), st->filename,
                             e->value) < 0)
                        return -ENOMEM;
        } else if (!(ref = strdup(e->value)))
                return -ENOMEM;

        if (ch->n >= MAX_INHERIT_DEPTH)
                return fail_at(st, e->line,
                               "[profile] inherit: expected at most %d levels of inheritance "
                               "(got '%s' at level %zu)",
                               MAX_INHERIT_DEPTH, e->value, ch->n + 1);
        if (!reader)
                return fail_at(st, e->line,
                               "[profile] inherit: expected a profile without a parent here "
                               "(got '%s')",
                               e->value);

        acs_error rerr = { 0 };
        int r = reader(userdata, ref, &ptext, &ppath, &rerr);
        if (r < 0) {
                if (r == -ENOMEM)
                        return acs_error_set(st->err, r, "profile", "out of memory");
                return fail_at(st, e->line, "[profile] inherit: %s", rerr.msg);
        }
        const char *id = ppath ? ppath : ref;
        for (size_t i = 0; i < ch->n; i++)
                if (strcmp(ch->ids[i], id) == 0) {
                        char loop[600];
                        size_t n = 0;
                        loop[0] = '\0';
                        for (size_t j = i; j < ch->n && n < sizeof loop; j++)
                                n += snprintf(loop + n, sizeof loop - n, "%s -> ", ch->ids[j]);
                        return fail_at(st, e->line,
                                       "[profile] inherit: expected a profile that does not "
                                       "inherit from itself (got '%s': loop %s%s)",
                                       e->value, loop, id);
                }

        ch->ids[ch->n++] = id;
        r = build(ptext, id, NULL, ch, reader, userdata, ret, st->err);
        ch->n--;
        if (r < 0)
                st->err_line = -1; /* the parent's own message stands */
        return r;
}

static char *name_from_path(const char *path)
{
        const char *b = strrchr(path, '/');
        b = b ? b + 1 : path;
        size_t n = strlen(b);
        if (n > 4 && strcmp(b + n - 4, ".ini") == 0)
                n -= 4;
        return strndup(b, n);
}

static int apply_entries(parse_state *st, acs_profile *p)
{
        for (size_t i = 0; i < st->n_entries; i++) {
                const entry *e = &st->entries[i];
                char bad[128], exp[256];
                int r = acs_profile_key_apply(e->key, p, e->op, e->value, bad, sizeof bad);
                if (r == -ENOMEM)
                        return acs_error_set(st->err, r, "profile", "out of memory");
                if (r < 0)
                        return fail_at(st, e->line, "[%s] %s: expected %s (got '%s')%s",
                                       e->key->section, e->key->key,
                                       acs_key_expected(e->key, exp, sizeof exp), bad,
                                       strstr(e->value, " #") ? "; comments after a value "
                                                                "start with ';'"
                                                              : "");
        }
        return 0;
}

static int build(const char *text, const char *filename, const char *name, chain *ch,
                 acs_profile_reader reader, void *userdata, acs_profile **ret, acs_error *err)
{
        parse_state st = { .filename = filename, .text = text, .pos = text, .prev = -1, .err = err };
        _cleanup_profile_ acs_profile *p = NULL;
        int r;

        r = collect(&st);
        if (r < 0)
                goto out;

        const entry *inherit = NULL;
        for (size_t i = 0; i < st.n_entries; i++)
                if (st.entries[i].key->type == ACS_KEY_REF)
                        inherit = &st.entries[i];
        if (inherit)
                r = build_parent(&st, inherit, ch, reader, userdata, &p);
        else
                r = acs_profile_new_defaults(&p);
        if (r < 0)
                goto out;

        r = apply_entries(&st, p);
        if (r < 0)
                goto out;

        free(p->name);
        free(p->path);
        p->name = name ? strdup(name) : name_from_path(filename);
        p->path = strdup(filename);
        if (!p->name || !p->path) {
                r = acs_error_set(err, -ENOMEM, "profile", "out of memory");
                goto out;
        }
        *ret = TAKE_PTR(p);
out:
        entries_free(st.entries, st.n_entries);
        return r;
}

int acs_profile_parse(const char *text, const char *filename, const char *name,
                      acs_profile_reader reader, void *userdata, acs_profile **ret,
                      acs_error *err)
{
        chain ch = { .ids = { filename }, .n = 1 };
        return build(text ? text : "", filename, name, &ch, reader, userdata, ret, err);
}

/* ---- loading from the search path ------------------------------------------------ */

static int push_dir(char ***v, const char *dir)
{
        if (!dir || !*dir || acs_strv_contains(*v, dir))
                return 0;
        return acs_strv_push(v, dir);
}

static bool running_uninstalled(void)
{
        char dir[PATH_MAX];
        /* the name "": this binary's directory and a slash */
        if (acs_self_sibling("", dir, sizeof dir) < 0)
                return false;
        /* a libtool-linked binary runs from .libs/ */
        return strcmp(dir, ACS_ABS_BUILDDIR "/") == 0 || strcmp(dir, ACS_ABS_BUILDDIR "/.libs/") == 0;
}

char **acs_profile_search_path(void)
{
        _cleanup_strv_free_ char **v = calloc(1, sizeof(char *));
        _cleanup_free_ char *copy = NULL, *xdg = NULL;
        const char *env;

        if (!v)
                return NULL;
        env = secure_getenv("ACS_PROFILE_PATH");
        if (env && !(copy = strdup(env)))
                return NULL;
        for (char *save = NULL, *d = copy ? strtok_r(copy, ":", &save) : NULL; d;
             d = strtok_r(NULL, ":", &save))
                if (push_dir(&v, d) < 0)
                        return NULL;

        env = secure_getenv("XDG_CONFIG_HOME");
        if (env && env[0] == '/') {
                if (asprintf(&xdg, "%s/acs/profiles", env) < 0)
                        return NULL;
        } else if ((env = secure_getenv("HOME")) && env[0] == '/') {
                if (asprintf(&xdg, "%s/.config/acs/profiles", env) < 0)
                        return NULL;
        }
        if (push_dir(&v, xdg) < 0 || push_dir(&v, ACS_SYSCONFDIR "/acs/profiles") < 0 ||
            push_dir(&v, ACS_DATADIR "/acs/profiles") < 0)
                return NULL;
        if (running_uninstalled() && push_dir(&v, ACS_ABS_SRCDIR "/profiles") < 0)
                return NULL;
        return TAKE_PTR(v);
}

static int read_text(const char *path, char **ret, acs_error *err)
{
        _cleanup_close_ int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
        struct stat st;

        if (fd < 0)
                return acs_error_errno(err, -errno, "profile", "%s: cannot open profile", path);
        if (fstat(fd, &st) < 0)
                return acs_error_errno(err, -errno, "profile", "%s: cannot stat profile", path);
        if (!S_ISREG(st.st_mode))
                return acs_error_set(err, -EINVAL, "profile", "%s: not a regular file", path);
        if (st.st_size > MAX_PROFILE_SIZE)
                return acs_error_set(err, -EFBIG, "profile", "%s: larger than %d bytes", path,
                                     MAX_PROFILE_SIZE);

        _cleanup_free_ char *buf = NULL;
        size_t n;
        int r = acs_read_all(fd, (size_t)st.st_size, &buf, &n);
        if (r == -ENOMEM)
                return acs_error_set(err, -ENOMEM, "profile", "out of memory");
        if (r < 0)
                return acs_error_errno(err, r, "profile", "%s: read", path);
        if (memchr(buf, '\0', n))
                return acs_error_set(err, -EINVAL, "profile", "%s: contains a NUL byte", path);
        *ret = TAKE_PTR(buf);
        return 0;
}

static bool valid_name(const char *s)
{
        if (!*s || *s == '.' || strlen(s) > 200)
                return false;
        for (; *s; s++)
                if (!(isalnum((unsigned char)*s) || strchr("._-", *s)))
                        return false;
        return true;
}

/* NAME or PATH → the file to read. */
static int resolve(char *const *search, const char *ref, char **ret_path, acs_error *err)
{
        if (is_path_ref(ref)) {
                if (access(ref, F_OK) < 0)
                        return acs_error_errno(err, -errno, "profile", "profile file '%s'", ref);
                return (*ret_path = strdup(ref)) ? 0 : -ENOMEM;
        }
        if (!valid_name(ref))
                return acs_error_set(err, -EINVAL, "profile",
                                     "profile name '%s': expected letters, digits, '.', '_' "
                                     "and '-', or a path containing '/' or ending in .ini",
                                     ref);

        char searched[700];
        size_t n = 0;
        searched[0] = '\0';
        for (char *const *d = search; d && *d; d++) {
                _cleanup_free_ char *path = NULL;
                struct stat st;
                if (asprintf(&path, "%s/%s.ini", *d, ref) < 0)
                        return -ENOMEM;
                if (stat(path, &st) == 0 && S_ISREG(st.st_mode)) {
                        *ret_path = TAKE_PTR(path);
                        return 0;
                }
                if (n < sizeof searched)
                        n += snprintf(searched + n, sizeof searched - n, "%s%s", n ? ", " : "",
                                      path);
        }
        return acs_error_set(err, -ENOENT, "profile", "profile '%s' not found; searched %s", ref,
                             n ? searched : "nothing (empty search path)");
}

static int loader_reader(void *userdata, const char *name, char **ret_text, char **ret_path,
                         acs_error *err)
{
        char *const *search = userdata;
        _cleanup_free_ char *path = NULL, *text = NULL;
        int r = resolve(search, name, &path, err);
        if (r < 0)
                return r;
        r = read_text(path, &text, err);
        if (r < 0)
                return r;
        *ret_text = TAKE_PTR(text);
        *ret_path = TAKE_PTR(path);
        return 0;
}

static int load_with(char *const *search, const char *ref, acs_profile **ret, acs_error *err)
{
        _cleanup_free_ char *path = NULL, *text = NULL, *name = NULL;
        int r = loader_reader((void *)search, ref, &text, &path, err);
        if (r < 0)
                return r;
        if (!(name = is_path_ref(ref) ? name_from_path(path) : strdup(ref)))
                return -ENOMEM;
        return acs_profile_parse(text, path, name, loader_reader, (void *)search, ret, err);
}

int acs_profile_load(const char *name_or_path, acs_profile **ret, acs_error *err)
{
        _cleanup_strv_free_ char **search = acs_profile_search_path();
        if (!search)
                return acs_error_set(err, -ENOMEM, "profile", "out of memory");
        int r = load_with(search, name_or_path, ret, err);
        if (r < 0 && err)
                err->exit_status = 125;
        return r;
}

bool acs_profile_name_valid(const char *s)
{
        size_t n = strlen(s);

        if (n == 0 || n > ACS_PROFILE_NAME_MAX || !isalnum((unsigned char)s[0]))
                return false;
        for (size_t i = 0; i < n; i++)
                if (!isascii((unsigned char)s[i]) || !(isalnum((unsigned char)s[i]) || strchr("._-", s[i])))
                        return false;
        /* "x.ini" names a file in the cwd to acs_profile_load: never a name */
        return !(n >= 4 && strcmp(s + n - 4, ".ini") == 0);
}

int acs_profile_load_name(const char *name, acs_profile **ret, acs_error *err)
{
        _cleanup_strv_free_ char **search = acs_profile_search_path();
        _cleanup_strv_free_ char **abs = NULL;
        int r;

        if (!acs_profile_name_valid(name))
                return acs_error_set(err, -EINVAL, "profile",
                                     "'%.80s' is not a profile name (expected a letter or digit, then letters, "
                                     "digits, '.', '_' and '-', at most %d, no '/' and no '.ini')",
                                     name, ACS_PROFILE_NAME_MAX);
        if (!search || !(abs = calloc(1, sizeof(char *))))
                return acs_error_set(err, -ENOMEM, "profile", "out of memory");
        /* A relative entry of $ACS_PROFILE_PATH would be the cwd's: skipped. */
        for (char **d = search; *d; d++)
                if (**d == '/' && acs_strv_push(&abs, *d) < 0)
                        return acs_error_set(err, -ENOMEM, "profile", "out of memory");
        r = load_with(abs, name, ret, err);
        if (r < 0 && err)
                err->exit_status = 125;
        return r;
}

static int ini_filter(const struct dirent *d)
{
        size_t n = strlen(d->d_name);
        return n > 4 && d->d_name[0] != '.' && strcmp(d->d_name + n - 4, ".ini") == 0;
}

/* Every NAME.ini on the search path, the first of each name; sorted per directory. */
static int find_profiles(char *const *search, char ***names, char ***paths)
{
        int r = 0;
        for (char *const *d = search; *d; d++) {
                struct dirent **list = NULL;
                int n = scandir(*d, &list, ini_filter, alphasort);
                for (int i = 0; i < n; i++) {
                        const char *file = list[i]->d_name;
                        _cleanup_free_ char *name = strndup(file, strlen(file) - 4);
                        _cleanup_free_ char *path = NULL;
                        if (r < 0 || (name && (!valid_name(name) || acs_strv_contains(*names, name))))
                                continue;
                        if (!name || asprintf(&path, "%s/%s", *d, file) < 0 ||
                            acs_strv_push(names, name) < 0 || acs_strv_push(paths, path) < 0)
                                r = -ENOMEM;
                }
                for (int i = 0; i < n; i++)
                        free(list[i]);
                free(list);
                if (r < 0)
                        return r;
        }
        return 0;
}

int acs_profile_list(FILE *out, acs_error *err)
{
        _cleanup_strv_free_ char **search = acs_profile_search_path();
        _cleanup_strv_free_ char **names = calloc(1, sizeof(char *));
        _cleanup_strv_free_ char **paths = calloc(1, sizeof(char *));
        _cleanup_strv_free_ char **descs = NULL;
        size_t n_names, width = 4, dwidth = 11;

        if (!search || !names || !paths || find_profiles(search, &names, &paths) < 0)
                return acs_error_set(err, -ENOMEM, "profile", "out of memory");
        n_names = acs_strv_length(names);
        if (!(descs = calloc(n_names + 1, sizeof(char *))))
                return acs_error_set(err, -ENOMEM, "profile", "out of memory");
        for (size_t i = 0; i < n_names; i++) {
                _cleanup_profile_ acs_profile *p = NULL;
                acs_error perr = { 0 };
                int r;
                if (load_with(search, paths[i], &p, &perr) < 0)
                        r = asprintf(&descs[i], "(invalid: %s)", perr.msg);
                else
                        r = asprintf(&descs[i], "%s",
                                     p->description && *p->description ? p->description : "-");
                if (r < 0)
                        return acs_error_set(err, -ENOMEM, "profile", "out of memory");
                /* very long descriptions do not push every path to the far right */
                if (strlen(descs[i]) > dwidth && strlen(descs[i]) <= 72)
                        dwidth = strlen(descs[i]);
                if (strlen(names[i]) > width)
                        width = strlen(names[i]);
        }
        if (!n_names) {
                fputs("no profiles found; searched:", out);
                for (char **d = search; *d; d++)
                        fprintf(out, " %s", *d);
                fputc('\n', out);
                return 0;
        }
        fprintf(out, "%-*s  %-*s  %s\n", (int)width, "NAME", (int)dwidth, "DESCRIPTION", "PATH");
        for (size_t i = 0; i < n_names; i++)
                fprintf(out, "%-*s  %-*s  %s\n", (int)width, names[i], (int)dwidth, descs[i],
                        paths[i]);
        return 0;
}
