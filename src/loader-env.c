/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Which variables run code before the scan, and why (see loader-env.h).
 *
 * The C library and its loader, for any dynamically linked interpreter:
 *   LD_*            ld.so(8): LD_PRELOAD, LD_LIBRARY_PATH, LD_AUDIT load
 *                   shared objects (their constructors run before main);
 *                   the rest (LD_PROFILE, LD_DEBUG_OUTPUT, ...) change what
 *                   the loader does or writes. All of them, so that a new one
 *                   is covered too.
 *   GCONV_PATH      iconv(3) modules are shared objects, loaded when a
 *                   character set is converted (the locale's, at start-up).
 *   LOCPATH, and a LANG, LANGUAGE or LC_* value holding a '/': locale data
 *                   from a file of the program's choosing; it names the
 *                   character set whose gconv module is loaded.
 *   GLIBC_TUNABLES  parsed by the loader itself before anything else runs
 *                   (CVE-2023-4911 was a bug in that parser).
 *   MALLOC_* (MALLOC_ARENA_MAX, MALLOC_CHECK_, ...) are aliases of malloc
 *   tunables: they neither load nor run code, so they are not listed.
 * python3, unless its flags hold -I or -E (which make it ignore PYTHON*):
 *   PYTHONPATH, PYTHONHOME, PYTHONPLATLIBDIR (where the standard library
 *   that start-up imports comes from), PYTHONPYCACHEPREFIX (compiled
 *   modules read from there), PYTHONSTARTUP, PYTHONINSPECT (an interactive
 *   prompt on stdin after a refusal), PYTHONUSERBASE (user site, its .pth
 *   files), PYTHONWARNINGS (a category names a module that is imported),
 *   PYTHONBREAKPOINT, and every PYTHON* variable not known to be harmless
 *   (the allow list below), so that a new one is covered too.
 */
#include <string.h>

#include "loader-env.h"

static const char *const python_harmless[] = {
        "PYTHONHASHSEED", "PYTHONDONTWRITEBYTECODE", "PYTHONUNBUFFERED", "PYTHONUTF8",
        "PYTHONIOENCODING", "PYTHONFAULTHANDLER", "PYTHONINTMAXSTRDIGITS", "PYTHONNODEBUGRANGES",
        "PYTHONCOERCECLOCALE", "PYTHONSAFEPATH", "PYTHONNOUSERSITE", "PYTHONOPTIMIZE",
        "PYTHONVERBOSE", "PYTHONDEVMODE", "PYTHONTRACEMALLOC", "PYTHONMALLOC",
};

static bool name_is(const char *kv, size_t n, const char *name)
{
        return strlen(name) == n && strncmp(kv, name, n) == 0;
}

static bool locale_var(const char *kv, size_t n)
{
        return name_is(kv, n, "LANG") || name_is(kv, n, "LANGUAGE") || (n > 3 && strncmp(kv, "LC_", 3) == 0);
}

bool acs_env_runs_code(const char *kv, bool python_reads_env)
{
        size_t n = strcspn(kv, "=");
        const char *value = kv[n] ? kv + n + 1 : "";

        if (strncmp(kv, "LD_", 3) == 0 || name_is(kv, n, "GCONV_PATH") || name_is(kv, n, "LOCPATH") ||
            name_is(kv, n, "GLIBC_TUNABLES"))
                return true;
        if (locale_var(kv, n) && strchr(value, '/'))
                return true;
        if (python_reads_env && strncmp(kv, "PYTHON", 6) == 0) {
                for (size_t i = 0; i < ELEMENTSOF(python_harmless); i++)
                        if (name_is(kv, n, python_harmless[i]))
                                return false;
                return true;
        }
        return false;
}

bool acs_python_flags_ignore_env(char *const *flags)
{
        for (char *const *f = flags; f && *f; f++) {
                const char *w = *f;
                if (strcmp(w, "--") == 0 || w[0] != '-')
                        return false; /* the options end here */
                if (w[1] == '-')
                        continue;     /* --long options: none of them is -I */
                for (const char *c = w + 1; *c; c++) {
                        if (*c == 'I' || *c == 'E')
                                return true;
                        if (strchr("cmWX", *c)) { /* the rest of the word, or the next one, is its value */
                                if (c[1] == '\0' && f[1])
                                        f++;
                                break;
                        }
                }
        }
        return false;
}
