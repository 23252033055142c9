/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * What the write-back (--apply, `acs-launch apply`) may do: the protected
 * paths, the symlinks that may come back, the modes new and changed entries
 * get. Pure (apply-policy.c): no I/O; what the host holds comes in through a
 * probe callback (apply-host.c has the real one), so the rules are
 * unit-tested table-driven (tests/unit/test-apply-policy.c).
 */
#pragma once

#include "diff.h"

/* ---- names ---------------------------------------------------------------- */

/*
 * The folded form of a name, for matching only: ASCII letters lower-cased,
 * the Unicode letters that case-insensitive filesystems fold onto ASCII
 * (U+017F long s -> s, U+212A Kelvin sign -> k, U+0130 and U+0131 -> i)
 * replaced, and trailing dots and spaces removed (vfat drops them). Writes
 * at most n bytes to out (never more than the input) and returns the length.
 */
size_t acs_fold_name(const char *s, size_t n, char *out);
/* Every '/'-separated component of path folded; NULL on ENOMEM. */
char *acs_fold_path(const char *path);

/*
 * The built-in list, always on (the profile's protect adds to it): names
 * protected at any depth, in folded form; a "dir/name" entry is a pair of
 * consecutive components. NULL-terminated.
 */
extern const char *const acs_protect_builtin[];
/* The built-in entry a folded path (or one of its parents) matches, or NULL. */
const char *acs_protect_builtin_match(const char *folded);
/* The built-in entry naming component cur after component prev (NULL at the top), or NULL. */
const char *acs_protect_builtin_for(const char *prev, size_t plen, const char *cur, size_t clen);

/*
 * [filesystem] protect patterns, compiled. Syntax (acs-launch.profile(5)):
 * '*' any run of characters but '/', '?' one character but '/', '[...]' a
 * bracket expression ('!' or '^' negates, ranges, never '/'), '**' as a
 * whole component zero or more directories, '\' quotes the next character.
 * A pattern matches a path or any of its parents. It may match at any depth
 * (as if it began with "**" + "/") unless it begins with '/', which anchors
 * it at the workspace root. Matching folds both sides as acs_fold_name.
 */
typedef struct acs_globpat {
        const char *orig;  /* the profile's string (borrowed) */
        char *full;        /* folded, anchored form ("**" + "/" prepended when unanchored) */
        char *below;       /* full + "/" + "**": the paths below a match */
        char **comps;      /* folded components (NULL-terminated) */
        size_t m;          /* number of components */
        bool anchored;     /* began with '/' */
        bool deep;         /* has a "**" component of its own */
} acs_globpat;
typedef struct acs_globset {
        acs_globpat *v;
        size_t n;
} acs_globset;
int acs_globset_compile(char *const *patterns, acs_globset *ret);
void acs_globset_done(acs_globset *g);
/* The original pattern that matches the folded path (or a parent), or NULL. */
const char *acs_globset_match(const acs_globset *g, const char *folded);

/* ---- symlinks ------------------------------------------------------------- */

/*
 * May a symlink at path (relative to the workspace) with this target be
 * written back? Only when the target stays inside the workspace, resolved
 * lexically from the link's directory without following anything: it is
 * relative, not empty, its ".." come only at its start (after a name, a
 * symlink on the host could lead anywhere) and never climb above the
 * workspace root. On success *ret_resolved (may be NULL) is the target as a
 * path relative to the workspace ("" for the root), malloc'd; on refusal 0
 * is returned and *why says why; -ENOMEM.
 */
int acs_symlink_resolve(const char *path, const char *target, char **ret_resolved, const char **why);

/* ---- modes ---------------------------------------------------------------- */

/*
 * Modes never widen. A new file gets 0644, or 0755 when the sandbox set its
 * owner's x bit, a new directory 0755, both under the host's umask; an
 * existing entry keeps its host mode, but for a file's owner x bit, which
 * comes from the sandbox. The sandbox may narrow group and other bits (a
 * 0600 key file stays 0600), never widen them; the owner keeps rwx on a
 * directory. Setuid, setgid and sticky never come from the sandbox (a
 * directory keeps its host's own).
 */
uint32_t acs_apply_mode_new(acs_ftype t, uint32_t sandbox_mode, uint32_t umask);
uint32_t acs_apply_mode_existing(acs_ftype t, uint32_t host_mode, uint32_t sandbox_mode);

/* ---- classification ---------------------------------------------------------- */

enum {
        ACS_MARK_HEAD = 1 << 0,
        ACS_MARK_OBJECTS = 1 << 1,
        ACS_MARK_REFS = 1 << 2,
        ACS_MARK_COMMONDIR = 1 << 3,
};
/* Marker bit of a git directory entry name (folded compare), or 0. */
unsigned acs_repo_marker(const char *name, size_t n);
/* A git directory by its shape: HEAD and objects, refs or commondir. */
bool acs_repo_shaped(unsigned markers);

/* What the host holds at a directory path of the workspace. */
typedef struct acs_host_dir {
        bool exists;       /* a directory, reached without a symlink */
        unsigned markers;  /* ACS_MARK_* of the entries it holds */
        uint64_t dev, ino;
} acs_host_dir;
/* path is relative to the workspace, len bytes ("" = the workspace itself);
 * known: the markers the changes bring there (a probe may skip looking for
 * the others when neither the host nor the changes have a HEAD). */
typedef int (*acs_host_probe)(void *userdata, const char *path, size_t len, unsigned known,
                              acs_host_dir *ret);

/*
 * A place acs-launch reads its own configuration from: an existing directory
 * (by identity) and the folded components below it that do not exist yet
 * (none: the directory itself and all it holds).
 */
typedef struct acs_guard {
        uint64_t dev, ino;
        char **tail;   /* NULL-terminated, may be NULL */
        char *what;    /* the configured path, for messages */
} acs_guard;
typedef struct acs_guards {
        acs_guard *v;
        size_t n;
} acs_guards;
void acs_guards_done(acs_guards *g);

typedef enum {
        ACS_PROT_NONE = 0,
        ACS_PROT_BUILTIN,  /* detail: the built-in entry */
        ACS_PROT_GLOB,     /* detail: the profile's pattern */
        ACS_PROT_REPO,     /* inside (or is) a git directory found by its shape */
        ACS_PROT_CONFIG,   /* acs-launch's own configuration; detail: the configured path */
        ACS_PROT_HOLDS,    /* a removed directory that holds a protected entry */
        ACS_PROT_LINK,     /* a symlink to a protected path; detail: why that one is */
        ACS_PROT_RECORDED, /* flagged when the changes were recorded */
} acs_prot_kind;
typedef struct acs_prot {
        acs_prot_kind kind;
        const char *detail; /* borrowed from the input, may be NULL */
} acs_prot;

typedef struct acs_protect_in {
        const acs_globset *globs;   /* may be NULL */
        const acs_guards *guards;   /* may be NULL */
        acs_host_probe probe;       /* NULL: nothing known about the host */
        void *probe_data;
        acs_prot root;              /* set when the whole workspace is protected */
        uint64_t seed;              /* hash seed (random: names come from the sandbox) */
} acs_protect_in;

/* One acs_prot per change, parallel to c's lists. */
typedef struct acs_protect_out {
        acs_prot *added, *modified, *deleted;
} acs_protect_out;

/*
 * Classify every change of c: by name (built-in list, then the profile's
 * patterns), by the shape of the directories on its way (the host's entries
 * and the changes' own: a git directory made by the program counts), by
 * acs-launch's configuration places, and removed directories that hold a
 * protected entry. Cost linear in the total length of the paths, plus one
 * probe per directory on the way that exists on the host.
 */
int acs_protect_classify(const acs_changes *c, const acs_protect_in *in, acs_protect_out *ret);
void acs_protect_out_done(acs_protect_out *o);
/* "built-in list: .git", "[filesystem] protect: secrets", ... into buf. */
const char *acs_prot_describe(const acs_prot *p, char *buf, size_t n);

/* ---- the host side (apply-host.c) ------------------------------------------------ */

/* acs_protect_classify against the host directory host_fd (-1: names only). */
int acs_protect_host(const acs_changes *c, int host_fd, char *const *globs, const acs_guards *guards,
                     acs_protect_out *ret, acs_error *err);
/* The same, setting each change's is_protected (never clearing it). */
int acs_protect_mark(acs_changes *c, int host_fd, char *const *globs, const acs_guards *guards,
                     acs_error *err);
/* Every directory on the profile search path and the profile file itself
 * (profile_path may be NULL): places apply never writes. */
int acs_guards_for_profile(const char *profile_path, acs_guards *ret, acs_error *err);
