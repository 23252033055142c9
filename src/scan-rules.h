/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Inside acs-scan.so only: name classification shared by the walker. Pure C,
 * no Python: which attribute names are reflective, which reach frames,
 * which modules an attribute chain must never reach, the import allowlist,
 * and the format-string field parser.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "profile.h"

/* Rule ids (findings' "rule"). */
#define R_IMPORT "forbidden-import"
#define R_BUILTIN "denied-builtin"
#define R_ATTR "denied-attribute"
#define R_REFLECT "reflective-access"
#define R_FRAME "frame-walk"
#define R_TYPE "dynamic-type"
#define R_PRIVATE "module-internals"
#define R_WRITE "module-write"
#define R_MEMBER "denied-member"
#define R_SYNTAX "syntax-error"
#define R_SIZE "source-too-large"
#define R_LIMIT "scan-limit" /* the scan stopped at a limit: always a refusal */

/* deny_attributes, then frame walks, then reflective dunders; NULL if benign. */
const char *acs_rules_classify_attr(const acs_profile *p, const char *name);
/* Could a string starting with prefix / ending with suffix be a sensitive attribute? */
bool acs_rules_prefix_sensitive(const acs_profile *p, const char *prefix);
bool acs_rules_suffix_sensitive(const acs_profile *p, const char *suffix);
/* Dunder names a program may read as plain names (__name__, __doc__, ...). */
bool acs_rules_dunder_name_ok(const char *name);
/* license, copyright, credits, help: site's builtins (they read files), when -S is dropped. */
bool acs_rules_site_builtin(const char *name);
/* vars, dir, globals, locals: namespace introspection. */
bool acs_rules_namespace_builtin(const char *name);
/*
 * Modules that give the process, the file system, the network or the
 * interpreter's internals. strong: also flagged as an attribute of any object.
 */
bool acs_rules_dangerous_module(const char *name, bool strong);
bool acs_rules_is_private(const char *name); /* _x but not __x__ */
bool acs_rules_is_dunder(const char *name);
/* An entry pkg allows pkg only; pkg.* allows pkg and every submodule. */
bool acs_rules_import_allowed(const acs_profile *p, const char *dotted);
/* A name inside an allowed module (os.path.join under os.path). */
bool acs_rules_name_allowed(const acs_profile *p, const char *qualified);

/*
 * deny_members: the length of the shortest dotted prefix of qualified
 * ("numpy.ctypeslib" of "numpy.ctypeslib.load_library") that a pattern
 * matches (fnmatch), with the pattern in *ret_pattern; 0 when none does.
 */
size_t acs_rules_member_denied(const acs_profile *p, const char *qualified, const char **ret_pattern);
/* Does a deny_members pattern name something inside module mod (for `from mod import *`)? */
bool acs_rules_members_under(const acs_profile *p, const char *mod);
/* mod is not allowed, but a submodule of it is ("os.path" for "os"). */
bool acs_rules_import_partial(const acs_profile *p, const char *mod);
/* The allowed submodules of mod, "os.path, os.path.x" (caller frees), or NULL. */
char *acs_rules_allowed_under(const acs_profile *p, const char *mod);
/* Are qualified names ever judged (deny_members, or a partly allowed module)? */
bool acs_rules_members_needed(const acs_profile *p);
/* "math, cmath, json, …" (at most max entries); caller frees. */
char *acs_rules_list(char *const *v, size_t max);
/* A hint that says what to do instead, for each rule/name. Never NULL. */
const char *acs_rules_hint(const char *rule, const char *name);

/* Call cb with every fixed name the rules above look at. */
void acs_rules_each_name(void (*cb)(void *ud, const char *name), void *ud);

/*
 * Call cb for every attribute name reached by a replacement field of a
 * str.format template ("{0.__class__}" -> "__class__"). Returns what the
 * last cb returned, stopping at the first non-zero.
 */
int acs_rules_format_attrs(const char *s, int (*cb)(void *ud, const char *attr), void *ud);

/*
 * The same parser fed in pieces, for a template that is only known as a
 * sequence of parts (a concatenation too long to build): feeding "{0." then
 * "__class__}" finds what acs_rules_format_attrs finds in the whole. The
 * state is small and comparable, so that a repeated part can stop being fed
 * once feeding it again changes nothing (see acs_fmt_same).
 */
typedef struct acs_fmt_stream {
        int state;    /* text, '{' seen, in a field, in an attribute name */
        bool bracket; /* inside [ ] of a field */
        size_t n;     /* attribute name so far */
        char buf[256];
        int (*cb)(void *ud, const char *attr);
        void *ud;
        int ret; /* the first non-zero cb result; feeding stops there */
} acs_fmt_stream;

void acs_fmt_init(acs_fmt_stream *f, int (*cb)(void *ud, const char *attr), void *ud);
/* Returns f->ret. */
int acs_fmt_feed(acs_fmt_stream *f, const char *s, size_t len);
/* The end of the template. Returns f->ret. */
int acs_fmt_end(acs_fmt_stream *f);
/* Would a and b parse the rest of any template alike? */
bool acs_fmt_same(const acs_fmt_stream *a, const acs_fmt_stream *b);
