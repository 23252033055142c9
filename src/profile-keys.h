/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The one table of profile keys. Parsing, validation, defaults and the
 * KEYS section of acs-launch.profile(5) are all driven from it, so a key
 * cannot exist in one and be missing from another.
 */
#pragma once

#include <stdio.h>

#include "profile.h"

typedef enum {
        ACS_KEY_STRING,    /* free text (description) */
        ACS_KEY_REF,       /* a profile NAME or PATH (inherit) */
        ACS_KEY_PATH,      /* one absolute path */
        ACS_KEY_HOSTNAME,
        ACS_KEY_ENUM,
        ACS_KEY_SIZE,      /* acs_parse_size, into uint64_t */
        ACS_KEY_SECONDS,   /* acs_parse_seconds, into double */
        ACS_KEY_CPU,       /* seconds rounded up, into uint64_t */
        ACS_KEY_UINT,      /* into uint64_t */
        /* lists (strv); see acs_key_is_list() */
        ACS_KEY_PATHS,     /* absolute paths */
        ACS_KEY_MODULES,   /* dotted Python module names */
        ACS_KEY_IDENTS,    /* Python identifiers */
        ACS_KEY_SYSCALLS,  /* names known to libseccomp */
        ACS_KEY_ENV_NAMES,
        ACS_KEY_ENV_SET,   /* VAR=VALUE, split on whitespace only */
        ACS_KEY_WORDS,     /* interpreter flags, split on whitespace only */
        ACS_KEY_GLOBS,     /* relative glob patterns */
        ACS_KEY_LOCKED,    /* names of command-line overridable settings */
        ACS_KEY_MEMBERS,   /* qualified names MODULE.NAME[.NAME...], '*' globs after the module */
} acs_key_type;

typedef struct acs_profile_key {
        const char *section;
        const char *key;
        acs_key_type type;
        size_t offset;                /* of the field in acs_profile */
        const char *const *enum_names; /* ACS_KEY_ENUM: index == enum value */
        uint64_t min, max;            /* UINT/SIZE range; 0 max = none */
        bool zero_is_none;            /* 0 (or "none"/"unlimited") disables the limit */
        const char *def;              /* default, written as profile text; NULL: unset */
        const char *def_doc;          /* default as the man page shows it, if not def */
        const char *doc;              /* roff-safe one paragraph */
} acs_profile_key;

typedef struct acs_profile_section {
        const char *name;
        const char *doc;
} acs_profile_section;

extern const acs_profile_key acs_profile_key_table[];
extern const size_t acs_profile_n_keys;
extern const acs_profile_section acs_profile_section_table[];
extern const size_t acs_profile_n_sections;

/* The settings `[profile] locked` may name (canonical spellings). */
extern const char *const acs_profile_lockable[];

typedef enum { ACS_OP_SET, ACS_OP_APPEND, ACS_OP_REMOVE } acs_key_op;

const acs_profile_key *acs_profile_key_find(const char *section, const char *key);
bool acs_profile_section_known(const char *section);
bool acs_key_is_list(const acs_profile_key *k);
/* What the value must look like, for "expected ..." messages. */
const char *acs_key_expected(const acs_profile_key *k, char *buf, size_t size);
const char *acs_key_type_name(const acs_profile_key *k);

/*
 * Parse value and store it in p. On a bad value returns -EINVAL and points
 * *ret_bad at the offending part of value (a list element, or all of it),
 * copied into badbuf. -ENOMEM on allocation failure.
 */
int acs_profile_key_apply(const acs_profile_key *k, acs_profile *p, acs_key_op op,
                          const char *value, char *badbuf, size_t badsize);

/* A profile holding every key's default. */
int acs_profile_new_defaults(acs_profile **ret);

/* The roff KEYS part of acs-launch.profile(5), generated from the table. */
void acs_profile_write_man_keys(FILE *out);

/* An absolute path without '..' components (and shorter than PATH_MAX). */
bool acs_path_is_clean_abs(const char *s);

/* Optimal-string-alignment edit distance, for "did you mean" suggestions. */
size_t acs_edit_distance(const char *a, const char *b);
