/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The pure-math profile as profiles/pure-math.ini resolves it, built in code
 * so this unit test does not depend on the profile loader. */
#pragma once

#include "profile.h"

static inline char **tsp_split(const char *s)
{
        char **v = NULL, *copy = strdup(s), *save = NULL;
        for (char *t = strtok_r(copy, " ", &save); t; t = strtok_r(NULL, " ", &save))
                acs_strv_push(&v, t);
        free(copy);
        return v ? v : calloc(1, sizeof(char *));
}

static inline acs_profile *test_scan_profile(void)
{
        acs_profile *p = calloc(1, sizeof *p);
        p->name = strdup("pure-math");
        p->scan_mode = ACS_SCAN_ENFORCE;
        p->allow_imports = tsp_split(
                "math cmath json re datetime statistics random collections itertools functools "
                "fractions decimal numbers string operator heapq bisect array copy typing "
                "dataclasses enum abc textwrap");
        p->deny_builtins = tsp_split(
                "eval exec compile open __import__ globals locals vars getattr setattr delattr "
                "breakpoint input help __builtins__ __loader__ __spec__");
        p->deny_attributes = tsp_split(
                "__subclasses__ __globals__ __builtins__ __bases__ __base__ __mro__ mro __class__ "
                "__dict__ __code__ __closure__ __self__ __func__ __getattribute__ __setattr__ "
                "__delattr__ __reduce__ __reduce_ex__ __import__ __loader__ __spec__ __traceback__ "
                "tb_frame f_globals f_locals f_builtins f_back f_code gi_frame gi_code cr_frame "
                "cr_code ag_frame ag_code os _os sys _sys builtins bltns _builtins io _io codecs "
                "inspect importlib _imp types _types _thread warnings _warnings marshal linecache "
                "tokenize _locale subprocess _posixsubprocess");
        p->max_source = 1 << 20;
        p->interpreter = strdup("/usr/bin/python3");
        p->python_flags = tsp_split("-I -S");
        return p;
}

static inline void test_scan_profile_free(acs_profile *p)
{
        free(p->name);
        acs_strv_free(p->allow_imports);
        acs_strv_free(p->deny_builtins);
        acs_strv_free(p->deny_attributes);
        free(p->interpreter);
        acs_strv_free(p->python_flags);
        free(p);
}
