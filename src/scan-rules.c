/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Classification tables for the scan. The lists come from the bypass
 * families of public sandbox escapes (smolagents CVE-2025-5120: reaching
 * restricted modules through allowed ones; CVE-2025-9959: class hierarchy
 * walks to subprocess.Popen; issue #2094: ctypes; #2271: str.format field
 * paths; #2395: object hooks), not from any single exploit: each entry is a
 * name whose only use in model-written computation is to reach something the
 * profile withholds.
 */
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scan-rules.h"

static bool in_list(const char *const *v, const char *s)
{
        for (; *v; v++)
                if (strcmp(*v, s) == 0)
                        return true;
        return false;
}

static bool in_strv(char *const *v, const char *s)
{
        for (; v && *v; v++)
                if (strcmp(*v, s) == 0)
                        return true;
        return false;
}

/* Interpreter frames and tracebacks: a frame's f_globals/f_builtins is everything. */
static const char *const frame_attrs[] = {
        "gi_frame", "gi_code", "gi_yieldfrom", "cr_frame", "cr_code", "cr_await", "cr_origin",
        "ag_frame", "ag_code", "ag_await", "f_back", "f_globals", "f_locals", "f_builtins",
        "f_code", "f_trace", "tb_frame", "tb_next", "__traceback__", NULL,
};

/*
 * Dunders that reach classes, namespaces, functions' globals, modules'
 * loaders or the builtins. Not here on purpose: operator and protocol
 * dunders (__init__, __eq__, __len__, ...), __name__/__qualname__/__doc__,
 * and __class__ (the profile's deny_attributes decides; type(x) is the same).
 */
static const char *const reflective_attrs[] = {
        "__subclasses__", "__bases__", "__base__", "__mro__", "__dict__", "__globals__",
        "__builtins__", "__code__", "__closure__", "__func__", "__self__", "__loader__",
        "__spec__", "__import__", "__getattribute__", "__reduce__", "__reduce_ex__",
        "__subclasshook__", "__objclass__", "__thisclass__", "__self_class__",
        /* typing's private evaluation of forward references, reached through
         * public helpers (typing.get_args(List[s])[0]._evaluate(...)): eval */
        "_evaluate", "__forward_code__", "_eval_type", "evaluate_forward_ref", NULL,
};

/* site's builtins: license() reads files by name (license._Printer__filenames). */
static const char *const site_builtins[] = {"license", "copyright", "credits", "help", NULL};

static const char *const ok_dunder_names[] = {
        "__name__", "__file__", "__doc__", "__debug__", "__all__", "__version__",
        "__annotations__", "__qualname__", "__module__", "__slots__", "__author__",
        "__package__", "__match_args__", "__dataclass_fields__", NULL,
};

/* Reach one of these and the scan has nothing left to say: always flagged. */
static const char *const strong_modules[] = {
        "os", "sys", "subprocess", "builtins", "importlib", "ctypes", "_ctypes", "posix",
        "_posixsubprocess", "pty", "shutil", "socket", "_socket", "multiprocessing", "marshal",
        "pickle", "_pickle", "mmap", "gc", "inspect", "runpy", "_io", "_thread", "_imp",
        "_frozen_importlib", "_frozen_importlib_external", "_os", "_sys", "__builtins__", NULL,
};

/* Flagged when reached as an attribute of a module or named in `from M import`. */
static const char *const weak_modules[] = {
        "io", "pathlib", "signal", "_signal", "threading", "types", "code", "codeop",
        "tempfile", "glob", "asyncio", "resource", "fcntl", "select", "selectors",
        "socketserver", "http", "urllib", "ssl", "sysconfig", "site", "platform",
        "webbrowser", "zipimport", "pkgutil", "traceback", "linecache", "tokenize",
        "copyreg", "_weakref", "weakref", "atexit", "faulthandler", "pwd", "grp",
        "posixpath", "genericpath", "_collections_abc", "_abc", "_sitebuiltins", "ftplib",
        "smtplib", "telnetlib", "imp", "dis", "pdb", "bdb", "_warnings", "warnings",
        "_operator", "operator", "functools", "enum", "_string", "string", "zipfile",
        "tarfile", "shelve", "dbm", "sqlite3", "cProfile", "profile", "trace", "timeit",
        "doctest", "unittest", "concurrent", "queue", "_json", "_locale", "locale", "codecs",
        "_codecs", "fileinput", "filecmp", "gzip", "bz2", "lzma", "logging", "configparser",
        "mailbox", "netrc", "getpass", "tty", "termios", "readline", "rlcompleter", "xmlrpc",
        "ensurepip", "venv", "tkinter", "turtle", "sched", "uuid", "mimetypes", NULL,
};

const char *acs_rules_classify_attr(const acs_profile *p, const char *name)
{
        if (in_strv(p->deny_attributes, name))
                return R_ATTR;
        if (in_list(frame_attrs, name))
                return R_FRAME;
        if (in_list(reflective_attrs, name))
                return R_REFLECT;
        return NULL;
}

static bool any_starts(const char *const *v, const char *prefix, size_t n)
{
        for (; v && *v; v++)
                if (strncmp(*v, prefix, n) == 0)
                        return true;
        return false;
}

static bool any_ends(const char *const *v, const char *suffix, size_t n)
{
        for (; v && *v; v++) {
                size_t l = strlen(*v);
                if (l >= n && memcmp(*v + l - n, suffix, n) == 0)
                        return true;
        }
        return false;
}

bool acs_rules_prefix_sensitive(const acs_profile *p, const char *prefix)
{
        size_t n = strlen(prefix);
        if (n == 0 || prefix[0] == '_')
                return true;
        return any_starts((const char *const *)p->deny_attributes, prefix, n) ||
               any_starts(frame_attrs, prefix, n) || any_starts(reflective_attrs, prefix, n) ||
               any_starts(strong_modules, prefix, n) || any_starts(weak_modules, prefix, n);
}

bool acs_rules_suffix_sensitive(const acs_profile *p, const char *suffix)
{
        size_t n = strlen(suffix);
        if (n == 0 || suffix[n - 1] == '_')
                return true;
        return any_ends((const char *const *)p->deny_attributes, suffix, n) ||
               any_ends(frame_attrs, suffix, n) || any_ends(reflective_attrs, suffix, n) ||
               any_ends(strong_modules, suffix, n) || any_ends(weak_modules, suffix, n);
}

bool acs_rules_dunder_name_ok(const char *name)
{
        return in_list(ok_dunder_names, name);
}

bool acs_rules_site_builtin(const char *name)
{
        return in_list(site_builtins, name);
}

bool acs_rules_namespace_builtin(const char *name)
{
        static const char *const v[] = {"vars", "dir", "globals", "locals", NULL};
        return in_list(v, name);
}

bool acs_rules_dangerous_module(const char *name, bool strong)
{
        return in_list(strong_modules, name) || (!strong && in_list(weak_modules, name));
}

bool acs_rules_is_dunder(const char *name)
{
        size_t n = strlen(name);
        return n > 4 && name[0] == '_' && name[1] == '_' && name[n - 1] == '_' && name[n - 2] == '_';
}

bool acs_rules_is_private(const char *name)
{
        return name[0] == '_' && !acs_rules_is_dunder(name);
}

bool acs_rules_import_allowed(const acs_profile *p, const char *dotted)
{
        for (char *const *v = p->allow_imports; v && *v; v++) {
                const char *e = *v;
                size_t n = strlen(e);
                if (strcmp(e, "*") == 0)
                        return true;
                /* pkg allows pkg alone: its submodules import what the
                 * profile withholds (json.tool: argparse, sys); pkg.* allows
                 * every submodule */
                if (n >= 2 && strcmp(e + n - 2, ".*") == 0) {
                        n -= 2;
                        if (strncmp(dotted, e, n) == 0 && (dotted[n] == '\0' || dotted[n] == '.'))
                                return true;
                } else if (strcmp(dotted, e) == 0) {
                        return true;
                }
        }
        return false;
}

bool acs_rules_name_allowed(const acs_profile *p, const char *qualified)
{
        char buf[512];
        size_t n = strlen(qualified);
        if (n >= sizeof buf)
                return false;
        memcpy(buf, qualified, n + 1);
        for (;;) { /* os.path.join: inside os.path */
                if (acs_rules_import_allowed(p, buf))
                        return true;
                char *dot = strrchr(buf, '.');
                if (!dot)
                        return false;
                *dot = '\0';
        }
}

size_t acs_rules_member_denied(const acs_profile *p, const char *qualified, const char **ret_pattern)
{
        char buf[512];
        size_t len = strlen(qualified);
        if (!p->deny_members || !*p->deny_members || len >= sizeof buf)
                return 0;
        memcpy(buf, qualified, len + 1);
        /* prefixes from MODULE.NAME on: a denied name denies what is reached through it */
        size_t n = strcspn(buf, ".");
        while (buf[n]) {
                n += 1 + strcspn(buf + n + 1, ".");
                char saved = buf[n];
                buf[n] = '\0';
                for (char *const *v = p->deny_members; *v; v++)
                        if (fnmatch(*v, buf, 0) == 0) {
                                if (ret_pattern)
                                        *ret_pattern = *v;
                                return n;
                        }
                buf[n] = saved;
        }
        return 0;
}

bool acs_rules_members_under(const acs_profile *p, const char *mod)
{
        size_t n = strlen(mod);
        for (char *const *v = p->deny_members; v && *v; v++)
                if (strncmp(*v, mod, n) == 0 && (*v)[n] == '.')
                        return true;
        return false;
}

bool acs_rules_import_partial(const acs_profile *p, const char *mod)
{
        size_t n = strlen(mod);
        for (char *const *v = p->allow_imports; v && *v; v++)
                if (strncmp(*v, mod, n) == 0 && (*v)[n] == '.' && strcmp(*v + n, ".*") != 0)
                        return true;
        return false;
}

char *acs_rules_allowed_under(const acs_profile *p, const char *mod)
{
        size_t n = strlen(mod), len = 1;
        for (char *const *v = p->allow_imports; v && *v; v++)
                len += strlen(*v) + 2;
        char *out = calloc(1, len);
        if (!out)
                return NULL;
        for (char *const *v = p->allow_imports; v && *v; v++)
                if (strncmp(*v, mod, n) == 0 && (*v)[n] == '.') {
                        if (*out)
                                strcat(out, ", ");
                        strcat(out, *v);
                }
        return out;
}

bool acs_rules_members_needed(const acs_profile *p)
{
        if (p->deny_members && *p->deny_members)
                return true;
        for (char *const *v = p->allow_imports; v && *v; v++) {
                const char *dot = strchr(*v, '.');
                char root[256];
                if (!dot || (size_t)(dot - *v) >= sizeof root)
                        continue;
                memcpy(root, *v, (size_t)(dot - *v));
                root[dot - *v] = '\0';
                if (!acs_rules_import_allowed(p, root))
                        return true;
        }
        return false;
}

char *acs_rules_list(char *const *v, size_t max)
{
        size_t len = 1, i = 0;
        for (char *const *s = v; s && *s; s++)
                len += strlen(*s) + 2;
        char *out = malloc(len + 8);
        if (!out)
                return NULL;
        out[0] = '\0';
        for (char *const *s = v; s && *s; s++, i++) {
                if (i == max) {
                        strcat(out, ", \xe2\x80\xa6"); /* … */
                        break;
                }
                if (i)
                        strcat(out, ", ");
                strcat(out, *s);
        }
        if (i == 0)
                strcpy(out, "none");
        return out;
}

const char *acs_rules_hint(const char *rule, const char *name)
{
        static const struct {
                const char *name, *hint;
        } builtins[] = {
                {"eval", "compute the value directly instead of evaluating a string"},
                {"exec", "write the code directly instead of executing a string"},
                {"compile", "write the code directly instead of compiling a string"},
                {"open", "files are not available; print results to stdout instead"},
                {"input", "stdin is not available; put the data in the code"},
                {"__import__", "use an import statement for an allowed module"},
                {"getattr", "use plain attribute access (obj.name) or a dict"},
                {"setattr", "assign the attribute directly (obj.name = value) or use a dict"},
                {"delattr", "use del obj.name or a dict"},
                {"globals", "pass values explicitly"},
                {"locals", "pass values explicitly"},
                {"vars", "access attributes by name or use dataclasses.asdict()"},
                {"dir", "list the names you need explicitly"},
                {"breakpoint", "debuggers are not available"},
                {"memoryview", "use bytes or bytearray"},
                {"license", "site's license/copyright/credits read files; print the text you need"},
                {"copyright", "site's license/copyright/credits read files; print the text you need"},
                {"credits", "site's license/copyright/credits read files; print the text you need"},
        };
        if (strcmp(rule, R_BUILTIN) == 0 || strcmp(rule, R_REFLECT) == 0)
                for (size_t i = 0; i < sizeof builtins / sizeof builtins[0]; i++)
                        if (strcmp(builtins[i].name, name) == 0)
                                return builtins[i].hint;
        if (strcmp(rule, R_ATTR) == 0 || strcmp(rule, R_REFLECT) == 0) {
                if (strcmp(name, "__class__") == 0)
                        return "use type(obj) or isinstance(obj, T)";
                if (strcmp(name, "__dict__") == 0)
                        return "access attributes by name or use dataclasses.asdict()";
                if (strstr(name, "class") || strstr(name, "base") || strcmp(name, "__mro__") == 0)
                        return "use isinstance() / issubclass() instead of walking the class hierarchy";
                return "interpreter internals are not reachable from sandboxed code";
        }
        if (strcmp(rule, R_FRAME) == 0)
                return "frames and tracebacks are not reachable; catch exceptions and print them instead";
        if (strcmp(rule, R_TYPE) == 0)
                return "define the class with a class statement";
        if (strcmp(rule, R_PRIVATE) == 0)
                return "use the module's public functions";
        if (strcmp(rule, R_MEMBER) == 0)
                return "the rest of the module is allowed; do it with another function";
        return "";
}

/*
 * Parse "{field.attr[key].attr!r:spec}" replacement fields, one character at
 * a time. "{{" is a literal brace; a field name ends at '!', ':' or '}'
 * outside [ ]; a '{' inside a field means it was not one (parsing restarts
 * at that brace); an attribute name runs from a '.' outside [ ] to the next
 * of . [ } ! : { (at most 255 bytes of it are reported).
 */
enum { FMT_TEXT, FMT_OPEN, FMT_FIELD, FMT_ATTR };

void acs_fmt_init(acs_fmt_stream *f, int (*cb)(void *ud, const char *attr), void *ud)
{
        *f = (acs_fmt_stream){ .state = FMT_TEXT, .cb = cb, .ud = ud };
}

static void fmt_flush(acs_fmt_stream *f)
{
        f->buf[f->n] = '\0';
        if (f->n && !f->ret)
                f->ret = f->cb(f->ud, f->buf);
        f->n = 0;
        f->state = FMT_FIELD;
}

static void fmt_char(acs_fmt_stream *f, char c)
{
        for (;;) { /* a character that ends a state is handled again in the next */
                switch (f->state) {
                case FMT_TEXT:
                        if (c == '{')
                                f->state = FMT_OPEN;
                        return;
                case FMT_OPEN:
                        if (c == '{') { /* "{{" */
                                f->state = FMT_TEXT;
                                return;
                        }
                        f->state = FMT_FIELD;
                        f->bracket = false;
                        continue;
                case FMT_FIELD:
                        if (c == '{') {
                                f->state = FMT_TEXT;
                                continue;
                        }
                        if (!f->bracket && (c == '}' || c == '!' || c == ':'))
                                f->state = FMT_TEXT;
                        else if (c == '[')
                                f->bracket = true;
                        else if (c == ']')
                                f->bracket = false;
                        else if (c == '.' && !f->bracket)
                                f->state = FMT_ATTR;
                        return;
                default: /* FMT_ATTR */
                        if (c == '.' || c == '[' || c == '}' || c == '!' || c == ':' || c == '{' ||
                            f->n + 1 >= sizeof f->buf) {
                                fmt_flush(f);
                                continue;
                        }
                        f->buf[f->n++] = c;
                        return;
                }
        }
}

int acs_fmt_feed(acs_fmt_stream *f, const char *s, size_t len)
{
        for (size_t i = 0; i < len && !f->ret; i++)
                fmt_char(f, s[i]);
        return f->ret;
}

int acs_fmt_end(acs_fmt_stream *f)
{
        if (f->state == FMT_ATTR)
                fmt_flush(f);
        return f->ret;
}

bool acs_fmt_same(const acs_fmt_stream *a, const acs_fmt_stream *b)
{
        return a->state == b->state && a->bracket == b->bracket && a->n == b->n && a->ret == b->ret &&
               memcmp(a->buf, b->buf, a->n) == 0;
}

int acs_rules_format_attrs(const char *s, int (*cb)(void *ud, const char *attr), void *ud)
{
        acs_fmt_stream f;
        acs_fmt_init(&f, cb, ud);
        acs_fmt_feed(&f, s, strlen(s));
        return acs_fmt_end(&f);
}

/* Every fixed name any rule looks at, for the walker's fast path. */
void acs_rules_each_name(void (*cb)(void *ud, const char *name), void *ud)
{
        static const char *const *const lists[] = {frame_attrs, reflective_attrs, strong_modules,
                                                   weak_modules};
        static const char *const extra[] = {"vars", "dir", "globals", "locals", "getattr",
                                            "setattr", "delattr", "hasattr", "type",
                                            /* scan-gen.c: helpers that reach attributes or generate code */
                                            "format", "format_map", "update_wrapper", "wraps",
                                            "make_dataclass", "namedtuple", "NamedTuple", "register",
                                            NULL};
        for (const char *const *v = site_builtins; *v; v++)
                cb(ud, *v);
        for (size_t i = 0; i < sizeof lists / sizeof lists[0]; i++)
                for (const char *const *v = lists[i]; *v; v++)
                        cb(ud, *v);
        for (const char *const *v = extra; *v; v++)
                cb(ud, *v);
}
