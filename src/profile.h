/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Policy profiles: INI files parsed with inih, with inheritance and validation. */
#pragma once

#include <stdio.h>

#include "common.h"

typedef enum { ACS_SCAN_ENFORCE, ACS_SCAN_WARN, ACS_SCAN_OFF } acs_scan_mode;
typedef enum { ACS_WS_OVERLAY, ACS_WS_READONLY, ACS_WS_NONE } acs_ws_mode;
typedef enum { ACS_NET_NONE, ACS_NET_LOOPBACK } acs_net_mode;
typedef enum { ACS_APPLY_SUCCESS, ACS_APPLY_ALWAYS, ACS_APPLY_NEVER } acs_apply_mode;
typedef enum { ACS_ANSI_STRIP, ACS_ANSI_KEEP } acs_ansi_mode;
/* [limits] memory_rlimit: when RLIMIT_AS carries the memory limit */
typedef enum { ACS_MEMRL_ALWAYS, ACS_MEMRL_FALLBACK } acs_memrl_mode;

/* Every list is a NULL-terminated strv (never NULL after acs_profile_load). */
typedef struct acs_profile {
        char *name;        /* "pure-math" */
        char *path;        /* file it was read from */
        char *description;
        char *inherit;     /* [profile] inherit as written in this file, or NULL */
        char **locked;     /* [profile] locked: settings the command line may not loosen,
                              canonical names from acs_profile_lockable (see
                              acs_profile_is_locked) */

        /* [scan] */
        acs_scan_mode scan_mode;
        char **allow_imports;
        char **deny_builtins;
        char **deny_attributes;
        char **deny_members; /* qualified names (globs): os.system numpy.ctypeslib os.exec* */
        uint64_t max_source;

        /* [python] */
        char *interpreter;
        char **python_flags;
        char *venv;        /* a virtual environment used read-only, or NULL */

        /* [filesystem] */
        char **ro_bind;    /* host paths shown read-only at the same place */
        char **sockets;    /* host unix sockets the program may connect to, same place */
        char **tmpfs;
        acs_ws_mode workspace;
        uint64_t workspace_size;
        char *hostname;
        char **protect;    /* globs never applied back */
        acs_apply_mode apply;

        /* [limits] */
        double timeout;    /* seconds, 0 = none */
        uint64_t cpu;      /* seconds, 0 = none */
        uint64_t memory;   /* bytes, 0 = none */
        uint64_t processes; /* >= 1 */
        uint64_t file_size; /* bytes, 0 = none */
        uint64_t open_files; /* >= 8 */
        acs_memrl_mode memory_rlimit;

        /* [output] */
        uint64_t max_tokens; /* 1 .. 4M */
        acs_ansi_mode ansi;

        /* [network] */
        acs_net_mode net;

        /* [seccomp] */
        char **seccomp_deny;

        /* [env] */
        char **env_keep;
        char **env_set;    /* "VAR=VALUE" */
        char **env_allow_loader; /* variables allowed to run code before the scan (loader-env.h) */
} acs_profile;

void acs_profile_free(acs_profile *p);
static inline void acs_profile_freep(acs_profile **p)
{
        if (*p)
                acs_profile_free(*p);
}
#define _cleanup_profile_ _cleanup_(acs_profile_freep)

/*
 * Pure: parse one profile from text (no inherit resolution). The loader
 * below resolves `inherit` through a callback so this stays free of I/O.
 * filename is used only in messages ("file:line: key: ...").
 */
typedef int (*acs_profile_reader)(void *userdata, const char *name, char **ret_text,
                                  char **ret_path, acs_error *err);
int acs_profile_parse(const char *text, const char *filename, const char *name,
                      acs_profile_reader reader, void *userdata, acs_profile **ret,
                      acs_error *err);

/* Search path (interfaces.md §2) and loading by NAME or PATH. */
char **acs_profile_search_path(void);
int acs_profile_load(const char *name_or_path, acs_profile **ret, acs_error *err);
/*
 * Loading by NAME only, for a name that does not come from the operator
 * (an MCP client's "profile"): a name is [A-Za-z0-9][A-Za-z0-9._-]*, at most
 * ACS_PROFILE_NAME_MAX bytes, and does not end in ".ini" (which
 * acs_profile_load would read as a path). acs_profile_load_name refuses
 * anything else and searches only the absolute directories of the search
 * path: nothing is ever looked up relative to the working directory.
 */
#define ACS_PROFILE_NAME_MAX 64
bool acs_profile_name_valid(const char *s); /* pure */
int acs_profile_load_name(const char *name, acs_profile **ret, acs_error *err);
/* "acs-launch profiles": name, description, path of each profile on the path. */
int acs_profile_list(FILE *out, acs_error *err);

/*
 * [profile] locked: may the command line loosen this setting? setting is
 * one of "timeout", "memory", "max_tokens", "net", "bind" (--bind and
 * --ro-bind), "env" (--setenv, --unsetenv), "workspace", "apply"; the
 * spellings "max-tokens", "network", "ro_bind", "ro-bind", "setenv" and
 * "unsetenv" are accepted too.
 */
bool acs_profile_is_locked(const acs_profile *p, const char *setting);

/* Names of enum values for reports and messages. */
const char *acs_scan_mode_to_string(acs_scan_mode m);
const char *acs_net_mode_to_string(acs_net_mode m);
const char *acs_ws_mode_to_string(acs_ws_mode m);
const char *acs_apply_mode_to_string(acs_apply_mode m);
const char *acs_ansi_mode_to_string(acs_ansi_mode m);
const char *acs_memrl_mode_to_string(acs_memrl_mode m);
