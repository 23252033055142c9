/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Table-driven tests of loader-env: variables that run code before the scan. */
#include "../tap.h"
#include "loader-env.h"

static const struct {
        const char *kv;
        bool python_reads_env, want;
} table[] = {
        { "LD_PRELOAD=/workspace/x.so", false, true },
        { "LD_LIBRARY_PATH=/workspace", false, true },
        { "LD_AUDIT=/workspace/a.so", false, true },
        { "LD_BIND_NOW=1", false, true }, /* every LD_ variable */
        { "LD_=x", false, true },
        { "GCONV_PATH=/workspace", false, true },
        { "LOCPATH=/workspace/loc", false, true },
        { "GLIBC_TUNABLES=glibc.malloc.check=3", false, true },
        { "LANG=/workspace/loc", false, true },
        { "LC_ALL=./x/y", false, true },
        { "LC_CTYPE=/tmp/l", false, true },
        { "LANGUAGE=de:/x", false, true },
        { "LANG=C.UTF-8", false, false },
        { "LC_ALL=en_US.UTF-8", false, false },
        { "MALLOC_ARENA_MAX=2", false, false },
        { "HOME=/workspace", false, false },
        { "PATH=/usr/bin:/bin", false, false },
        { "OLD_PRELOAD=x", false, false },
        { "XLD_PRELOAD=x", false, false },
        { "PYTHONPATH=/workspace", false, false }, /* python3 -I ignores it */
        { "PYTHONPATH=/workspace", true, true },
        { "PYTHONHOME=/workspace", true, true },
        { "PYTHONSTARTUP=/workspace/s.py", true, true },
        { "PYTHONINSPECT=1", true, true },
        { "PYTHONWARNINGS=ignore::evil.Warning", true, true },
        { "PYTHONUSERBASE=/workspace", true, true },
        { "PYTHONBREAKPOINT=evil.hook", true, true },
        { "PYTHONPYCACHEPREFIX=/workspace/c", true, true },
        { "PYTHONPLATLIBDIR=../../workspace", true, true },
        { "PYTHON_SOMETHING_NEW=1", true, true },
        { "PYTHONHASHSEED=0", true, false },
        { "PYTHONUNBUFFERED=1", true, false },
        { "PYTHONDONTWRITEBYTECODE=1", true, false },
        { "PYTHONUTF8=1", true, false },
        { "PYTHONHASHSEEDX=0", true, true },
};

#define F(...) ((char *[]){ __VA_ARGS__, NULL })

int main(void)
{
        for (size_t i = 0; i < ELEMENTSOF(table); i++)
                ok(acs_env_runs_code(table[i].kv, table[i].python_reads_env) == table[i].want,
                   "%s (python reads PYTHON*: %d) -> %s", table[i].kv, table[i].python_reads_env,
                   table[i].want ? "runs code" : "harmless");

        const struct {
                char **flags;
                bool want;
                const char *name;
        } flags[] = {
                { F("-I", "-S"), true, "-I -S" },
                { F("-S", "-E"), true, "-S -E" },
                { F("-IS"), true, "-IS" },
                { F("-SuI"), true, "-SuI" },
                { F("-S"), false, "-S" },
                { F("-X", "importtime", "-S"), false, "-X importtime -S" },
                { F("-Wignore"), false, "-Wignore (I inside a value)" },
                { F("-W", "I", "-S"), false, "-W I (a value)" },
                { F("-XI"), false, "-XI (a value)" },
                { F("-S", "--", "-I"), false, "after --" },
                { F("--check-hash-based-pycs", "always"), false, "a long option" },
                { NULL, false, "no flags" },
        };
        for (size_t i = 0; i < ELEMENTSOF(flags); i++)
                ok(acs_python_flags_ignore_env(flags[i].flags) == flags[i].want, "flags %s -> %s", flags[i].name,
                   flags[i].want ? "ignores PYTHON*" : "reads PYTHON*");
        return tap_done();
}
