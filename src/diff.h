/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The overlay upper layer after a run: classification, patch, apply, keep.
 *
 * Classification rules (acs_diff_collect):
 *  - Only the upper layer is walked; the lower layer is consulted only for
 *    names present in the upper (and, below an opaque directory or a removed
 *    lower directory, to list what became hidden). Nothing is followed:
 *    every lookup is relative to a directory fd with O_NOFOLLOW or
 *    AT_SYMLINK_NOFOLLOW.
 *  - added:    in the upper, absent from the lower (or hidden by an opaque
 *              parent and absent there). Directories are reported too, then
 *              their contents.
 *  - modified: in both, and the content (sha256), the symlink target, the
 *              permission bits or the type differ. A TYPE CHANGE (file <->
 *              dir <-> symlink <-> special) is ONE modified entry with
 *              old_type != type (short status "T"); when the old type was a
 *              directory, its old contents are also listed as deleted, when
 *              the new type is a directory its contents are listed as added.
 *              A copy-up with equal content and mode is not a change; a
 *              directory is modified only when its mode changed.
 *  - deleted:  a whiteout (0:0 character device) over a lower entry, or a
 *              lower entry hidden by an opaque directory (xattr
 *              user.overlay.opaque or trusted.overlay.opaque = "y") that the
 *              upper does not have. A removed directory is listed with all
 *              its lower contents, parents before children.
 *  Lists are in walk order: parents before children, names sorted bytewise
 *  within a directory.
 *
 * Paths are raw bytes relative to the workspace root, without "./" or a
 * leading "/", NUL-terminated (names cannot hold NUL), possibly not UTF-8.
 *
 * Bounds (security-model.md: the diff cannot be used against the launcher).
 * The upper layer holds whatever the program left: any depth, any width,
 * names of any bytes. The walk is iterative (an explicit stack, never the C
 * stack) and its memory does not grow with the tree:
 *  - a path longer than ACS_DIFF_MAX_PATH bytes is never listed, and a
 *    directory at that depth is not descended into (counted in
 *    omitted_dirs): the kernel could not open such a path for apply or the
 *    patch anyway, and it bounds the walk's stack (at most ~2,048 levels);
 *  - at most ACS_DIFF_OPEN_DIRS directories of the stack hold open fds; the
 *    others are re-opened below a kept ancestor (openat2 RESOLVE_BENEATH,
 *    no symlinks) when the walk comes back to them;
 *  - directories are read in sorted batches that share ACS_DIFF_NAME_BUDGET
 *    bytes of names, however many entries one directory holds;
 *  - the lists stop at max_entries or max_list_bytes (their size in the
 *    report's JSON, see acs_change_json_cost); what is left out is counted
 *    (omitted_*), the walk goes on to count it, and truncated is set;
 *  - an entry the launcher cannot read (mode 000 left by the program, run
 *    unprivileged) is reported without its digest; a directory it cannot
 *    list is counted in omitted_dirs. Neither is an error: what the program
 *    leaves behind never decides the run's status.
 */
#pragma once

#include <stdio.h>
#include <time.h>

#include "common.h"

#define ACS_DIFF_MAX_PATH 4095          /* PATH_MAX - 1: longer paths are left out */
#define ACS_DIFF_OPEN_DIRS 16           /* stack directories holding open fds */
#define ACS_DIFF_NAME_BUDGET (4u << 20) /* bytes of directory names held at once */

/* The engine's caps (run.c; acs-launch(1), THE WORKSPACE, "Bounds of the diff"). */
#define ACS_DIFF_MAX_ENTRIES 10000
#define ACS_DIFF_MAX_LIST_BYTES (4u << 20)  /* JSON bytes of the three lists */
#define ACS_DIFF_MAX_PATCH_BYTES (4u << 20) /* JSON bytes of the patch */

struct json_object;
struct acs_options;
struct acs_guards;

typedef enum {
        ACS_FT_NONE = 0,
        ACS_FT_FILE,
        ACS_FT_DIR,
        ACS_FT_SYMLINK,
        ACS_FT_FIFO,
        ACS_FT_SOCKET,
        ACS_FT_CHAR,
        ACS_FT_BLOCK,
} acs_ftype;

typedef struct acs_change {
        char *path;          /* raw bytes relative to /workspace (may be non-UTF-8) */
        size_t path_len;
        acs_ftype type;      /* new type (ACS_FT_NONE for deletions) */
        acs_ftype old_type;  /* type in the lower layer (ACS_FT_NONE for additions) */
        uint64_t size;       /* new size: file bytes, symlink target length, 0 otherwise */
        uint32_t mode;       /* permission bits (07777) */
        uint32_t old_mode;
        char sha256[65];     /* regular files: hex digest, "" otherwise */
        char old_sha256[65];
        char *target;        /* symlink target, never followed */
        bool is_protected;   /* matches [filesystem] protect: flagged, never applied */
        /* extensions */
        uint64_t old_size;
        char *old_target;    /* old symlink target (modified/deleted symlinks) */
        uint64_t rdev;       /* character/block devices: new device number */
        bool host_dir_changed; /* added, but the host directory changed during the run:
                                  the host may have deleted what this re-creates */
        char old_git[41];    /* kept layers: git blob id of the old content, from the patch */
} acs_change;

typedef struct acs_changes {
        acs_change *added;
        size_t n_added;
        acs_change *modified;
        size_t n_modified;
        acs_change *deleted;
        size_t n_deleted;
        char *patch;         /* git-style patch, NULL unless asked for */
        size_t patch_len;
        /* extensions */
        bool truncated;      /* the lists do not hold every change: see omitted_* */
        uint64_t omitted_entries; /* changes found but not listed */
        uint64_t omitted_bytes;   /* their sizes (new size; old size for deletions) */
        uint64_t omitted_dirs;    /* directories whose contents were not examined */
        bool patch_omitted;  /* a patch was asked for but is not there: over
                              * max_patch_bytes, lists truncated, or a file unreadable */
        char **patch_skipped; /* paths git cannot express (FIFOs, devices, empty dirs) - NULL-terminated, may be NULL */
        bool patch_truncated; /* the patch holds only its first files (MCP's cap, acs_mcp_cut_patch) */
        struct timespec run_start; /* when the run started (0: unknown); apply's conflict check */
} acs_changes;

typedef struct acs_diff_opts {
        /* [filesystem] protect patterns, NULL-terminated (may be NULL), on top
         * of the built-in list; see acs_globset in apply-policy.h. */
        char *const *protect;
        /* acs-launch's configuration places (acs_guards_for_profile), may be NULL */
        const struct acs_guards *guards;
        bool want_patch;          /* also fill c->patch (in process, udiff.c) */
        uint64_t max_entries;     /* 0: no limit; beyond it c->truncated is set */
        uint64_t max_list_bytes;  /* 0: no limit; JSON bytes of the lists (acs_change_json_cost) */
        size_t name_budget;       /* 0: ACS_DIFF_NAME_BUDGET (tests make it small to walk
                                   * big directories in many batches) */
        uint64_t max_patch_bytes; /* 0: no limit; a patch whose JSON-encoded size
                                   * (acs_json_cost_max) is bigger is dropped, c->patch_omitted
                                   * set; also bounds each file the patch reads */
} acs_diff_opts;

/*
 * Compare the upper layer with the lower one. upper_fd and lower_fd are
 * directory fds (O_PATH is fine); lower_fd may be -1 for "no lower" (empty
 * scratch workspace). On success *ret is filled (caller frees with
 * acs_changes_free) and 0 is returned; on failure -errno with err filled,
 * *ret untouched. Sets ret->run_start to 0; the engine may set it.
 * The patch is written in process (udiff.c), static acs-launch included.
 */
int acs_diff_collect(int upper_fd, int lower_fd, const acs_diff_opts *o, acs_changes *ret,
                     acs_error *err);

/* Build c->patch from the layers (called by acs_diff_collect when want_patch).
 * Git cannot express FIFOs, sockets, devices, empty directories or
 * permission bits other than 0755/0644: those go to c->patch_skipped.
 * No patch (c->patch_omitted) when the lists are truncated (it would be
 * incomplete), a file is unreadable, one side of a file is bigger than
 * max_patch_bytes, or the patch's JSON-encoded size would exceed it. */
int acs_changes_make_patch(int upper_fd, int lower_fd, acs_changes *c, uint64_t max_patch_bytes,
                           acs_error *err);

/*
 * Ready what the diff uses (the hash functions) in a long-lived process
 * before it forks workers. with_patch is kept for callers: the patch once
 * needed libgit2 loaded (~10 ms: its init parsed the CA bundle) and now
 * needs no library at all.
 */
int acs_diff_preload(bool with_patch, acs_error *err);

void acs_changes_free(acs_changes *c);
size_t acs_changes_count(const acs_changes *c);

/*
 * The "files" object of the report (interfaces.md §3). Each entry:
 * {"path", ["path_escaped": true], "type", "size", "mode" ("0644"),
 *  ["old_type"], ["old_mode"], ["sha256"], ["old_sha256"], ["target"],
 *  ["old_target"], ["protected": true], ["host_dir_changed": true]} and for
 *  modified entries "change": "content" | "mode" | "type"; deleted entries carry the old
 * values under "type"/"size"/"mode" and "old_sha256"/"old_target".
 * A string that is not valid UTF-8 is escaped (see acs_escape_bytes) and its
 * key gets a sibling "<key>_escaped": true ("path_escaped", "target_escaped",
 * "patch_escaped"). Never dropped. Also "truncated" with "omitted":
 * {"entries", "bytes", "dirs"}, "patch_omitted", "patch_skipped" when set.
 */
struct json_object *acs_changes_to_json(const acs_changes *c);
/* The bytes entry_json(ch) takes in the report (plain, no slash escaping),
 * with its separating comma: exact for sizes below 2^63, else above. */
size_t acs_change_json_cost(const acs_change *ch, bool deleted);
/* Keep at most keep entries in each list; the rest move to omitted_* and
 * truncated is set; the patch and patch_skipped go (patch_omitted). Used
 * to make a report fit (MCP). */
void acs_changes_clip(acs_changes *c, size_t keep);
/* The inverse (used for kept layers). -EINVAL on a malformed object. */
int acs_changes_from_json(struct json_object *j, acs_changes *ret, acs_error *err);

/* The kind of a change, by the list it is in ('A', 'M', 'D'): 'A' added,
 * 'D' deleted; a modification is 'T' when the type changed, 'P' when only
 * the permission bits did (same content or target; any directory), else 'M'. */
char acs_change_op(const acs_change *ch, char list);

/* `git status --short`-like lines: "A  path", "M  path", "D  path", "T  path"
 * (type change), "P  path" (permission bits only), odd names C-quoted as git
 * does, " (protected)" flagged, special files suffixed with their type.
 * Nothing for no changes. */
void acs_changes_print_short(FILE *f, const acs_changes *c);

/* ---- pure helpers (diff-util.c), unit-tested ---- */

/* The glob primitive: '*' '?' '[...]' never match '/'; a whole component
 * "**" matches zero or more directories ("**" + "/x" matches "x" and
 * "a/b/x"; "a/" + "**" matches everything below "a"); backslash quotes.
 * Anchored at both ends, case-sensitive. */
bool acs_glob_match(const char *pattern, const char *path);
/* [filesystem] protect semantics (acs-launch.profile(5), acs_globset): path
 * or one of its parents matches one of globs, at any depth unless the
 * pattern begins with '/', names folded. */
bool acs_glob_protected(char *const *globs, const char *path);

/* Valid UTF-8 is returned as is (*escaped = false). Otherwise every byte that
 * is not part of a valid UTF-8 sequence becomes the four characters "\xNN"
 * (lower-case hex) and a backslash becomes "\\", *escaped = true. Never NULL
 * except on ENOMEM. */
char *acs_escape_bytes(const char *s, size_t n, bool *escaped);
/* The length of acs_escape_bytes(s, n) once json-c writes it as a string
 * (plain, no slash escaping), quotes excluded: exact. *ret_escaped (may be
 * NULL) says whether acs_escape_bytes escapes it. */
size_t acs_json_cost(const char *s, size_t n, bool *ret_escaped);
/* The same for a piece of a longer string whose validity is unknown: an
 * upper bound whatever the rest holds (sums over pieces bound the whole). */
size_t acs_json_cost_max(const char *s, size_t n);
/* Inverse of acs_escape_bytes for escaped strings. NULL on bad input. */
char *acs_unescape_bytes(const char *s, size_t *ret_len);
/* git's core.quotePath quoting: returned unchanged unless a byte is < 0x20,
 * 0x7f, >= 0x80, '"' or '\\'; then "..." with C escapes and octal. */
char *acs_quote_c(const char *s, size_t n);
const char *acs_ftype_to_string(acs_ftype t); /* "file", "dir", "symlink", ... */
acs_ftype acs_ftype_from_string(const char *s);
acs_ftype acs_ftype_from_mode(uint32_t st_mode);

/* ---- apply (apply.c) ---- */

typedef struct acs_apply_opts {
        bool dry_run;                    /* check everything, write nothing */
        char *const *protect;            /* the profile's protect patterns (may be NULL) */
        const struct acs_guards *guards; /* acs-launch's configuration places (may be NULL) */
        uint32_t umask;                  /* the caller's umask: filters new entries' modes */
} acs_apply_opts;

typedef enum {
        ACS_APPLY_DONE = 0,   /* written (or already in the wanted state) */
        ACS_APPLY_SKIPPED,    /* FIFO, socket, device, or a symlink leading out: never created */
        ACS_APPLY_PROTECTED,  /* protected (built-in list, protect, git directory, configuration) */
        ACS_APPLY_CONFLICT,   /* the host changed since the run started: left alone */
        ACS_APPLY_UNSAFE,     /* path escapes the workspace ("..", symlink, absolute) */
        ACS_APPLY_FAILED,     /* a system call failed; see error */
} acs_apply_status;

typedef struct acs_apply_item {
        char *path;
        size_t path_len;
        char op;                /* 'A', 'M', 'D', 'T' (type), 'P' (permission bits only) */
        acs_apply_status status;
        int error;              /* -errno for FAILED, else 0 */
        char reason[160];
        uint32_t mode;          /* with mode_kept: the mode the entry has on the host */
        uint32_t asked_mode;    /* ... and the one the sandbox gave it */
        bool mode_kept;         /* the sandbox's mode was not taken as it was (never widened) */
} acs_apply_item;

typedef struct acs_apply_result {
        acs_apply_item *items; /* one per change, in the order processed */
        size_t n_items;
        size_t n_done, n_skipped, n_protected, n_conflicts, n_unsafe, n_failed;
} acs_apply_result;

/*
 * Write c into the host workspace (lower_fd), taking new contents from
 * upper_fd (the upper layer, or a kept layer's tree/). Only inside lower_fd:
 * every path is resolved with openat2(RESOLVE_BENEATH|RESOLVE_NO_SYMLINKS|
 * RESOLVE_NO_MAGICLINKS), or a component-wise O_NOFOLLOW walk where openat2
 * is missing. Regular files and symlinks are created under a temporary name
 * in the target directory and renamed into place.
 *  - Protection is decided here again, against the host as it is now
 *    (acs_protect_host: built-in list, o->protect, git directories by shape,
 *    o->guards); an entry flagged is_protected stays protected.
 *  - FIFOs, sockets, devices and symlinks whose target leaves the workspace
 *    (acs_symlink_resolve) are skipped.
 *  - Modes never widen: acs_apply_mode_new / acs_apply_mode_existing; a
 *    modified file keeps its host owner (run by root), new entries belong to
 *    the owner of the workspace directory.
 *  - Conflicts: before touching a path the host's current state is compared
 *    with what the sandbox saw (old type, old sha256 / target, old_git when
 *    set, and its ctime against c->run_start when set); an addition whose
 *    host directory changed during the run (host_dir_changed) or that exists
 *    now is a conflict too. An entry already in the wanted state counts as
 *    done.
 * Deletions run first (children before parents), then modifications, then
 * additions. A new file's content must hash to its recorded sha256.
 * Returns 0 when every entry was processed (see ret's counters for
 * conflicts etc.), -errno with err filled on a fatal error.
 */
int acs_apply_changes(int upper_fd, int lower_fd, const acs_changes *c, const acs_apply_opts *o,
                      acs_apply_result *ret, acs_error *err);
void acs_apply_result_free(acs_apply_result *r);
struct json_object *acs_apply_result_to_json(const acs_apply_result *r);
/* One line per entry that was not simply done ("conflict: M path: reason"),
 * and per entry whose mode was kept ("mode: P path: 0700 kept, asked 0777"). */
void acs_apply_result_print(FILE *f, const acs_apply_result *r);
/* Mark the additions whose host directory (host_fd: the workspace) changed
 * after c->run_start: the host may have deleted there what they re-create. */
void acs_changes_mark_run_conflicts(acs_changes *c, int host_fd);
/* Strict relative path check used by apply: no "", ".", "..", "//", leading "/". */
bool acs_path_is_safe(const char *path);

/* ---- keep (apply-keep.c, keep-load.c) ---- */

/*
 * Keep the changes in dir, which this creates (mode 0700; a path that
 * exists is refused, and so is a directory others could write or a parent
 * others could write without the sticky bit). The layout (acs-launch(1),
 * KEPT LAYERS):
 *   dir/acs-keep.json   {"schema": "acs-keep/2", "run_start": {"sec", "nsec"},
 *                        ["patch_sha256"], "files": <changes json>}   0600
 *   dir/changes.patch   c->patch when there is one                    0600
 *   dir/tree/...        added/modified regular files (0600), directories
 *                       (0700) and symlinks; the manifest holds the real modes
 * Whiteouts are portable: deletions live in the manifest only. FIFOs,
 * sockets and devices are listed, not copied.
 */
int acs_keep_layer(int upper_fd, const acs_changes *c, const char *dir, acs_error *err);
/* Before the run: dir does not exist yet and its parent is a directory we
 * may create it in, so that a refused --keep costs no run (the creation
 * after the run still refuses one that appeared since). */
int acs_keep_check(const char *dir, acs_error *err);
/*
 * Load a kept layer for apply: refuses (-errno, err filled) a directory that
 * is not the caller's alone (keep-load.c), and one whose tree/, manifest and
 * changes.patch disagree; *ret_changes from the manifest (old_git set from
 * the patch), *ret_tree_fd on dir/tree.
 */
int acs_keep_load(const char *dir, acs_changes *ret_changes, int *ret_tree_fd, acs_error *err);

/*
 * `acs-launch apply DIR --workspace W [--profile P] [--json] [--patch FILE|-]`:
 * applies a kept layer (o->args[0]) to W, with the current profile's protect
 * list (default "default") and acs-launch's configuration places protected.
 * --patch also writes the kept patch. Prints a short summary on stderr (or the JSON result on stdout with
 * --json). Exit status: 0 all applied (skipped specials and protected
 * entries do not count), 1 conflicts, unsafe paths or failures, 125 usage
 * or a broken kept layer.
 */
int acs_cmd_apply(const struct acs_options *o);
