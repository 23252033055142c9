/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The profile key table and the value parsers it drives. Pure: no I/O
 * except the man-page writer, which prints to a FILE it is given.
 */
#include <ctype.h>
#include <inttypes.h>
#include <math.h>
#include <seccomp.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "profile-keys.h"

#define OFF(field) offsetof(acs_profile, field)

static const char *const scan_modes[] = { "enforce", "warn", "off", NULL };
static const char *const ws_modes[] = { "overlay", "readonly", "none", NULL };
static const char *const net_modes[] = { "none", "loopback", NULL };
static const char *const apply_modes[] = { "success", "always", "never", NULL };
static const char *const ansi_modes[] = { "strip", "keep", NULL };
static const char *const memrl_modes[] = { "always", "fallback", NULL };

const char *const acs_profile_lockable[] = {
        "timeout", "memory", "cpu", "max_tokens", "net", "bind", "env", "workspace", "apply",
        "processes", "open_files", "file_size", NULL
};

/* Alternative spellings for [profile] locked, mapped to the canonical name. */
static const struct {
        const char *alias, *name;
} lock_aliases[] = {
        { "max-tokens", "max_tokens" }, { "network", "net" },  { "ro_bind", "bind" },
        { "ro-bind", "bind" },          { "setenv", "env" },   { "unsetenv", "env" },
        { "open-files", "open_files" }, { "file-size", "file_size" },
};

#define GIB (UINT64_C(1) << 30)
#define MIB (UINT64_C(1) << 20)

const acs_profile_section acs_profile_section_table[] = {
        { "profile", "What the profile is and where it comes from." },
        { "scan", "Layer 1, the AST scan of the Python source before it runs. It gives fast, "
                  "precise refusals; it is not the security boundary (the kernel layer is)." },
        { "python", "The interpreter started inside the sandbox for run and \\-c." },
        { "filesystem", "What the sandbox sees. Its root is an empty tmpfs; only the paths "
                        "named here, /proc, a minimal /dev and /workspace are added." },
        { "limits", "Resource limits. All are rlimits; memory and processes are also set on "
                    "the run's own cgroup when the launcher runs in a delegated cgroup v2 "
                    "subtree (see acs-launch(1), Limits); the report says which. cpu and memory "
                    "also bound the scan that check and MCP inspect_code_security run outside "
                    "any sandbox (see acs-launch(1), acs-launch check)." },
        { "output", "How the program's stdout and stderr are returned." },
        { "network", "The network namespace." },
        { "seccomp", "System calls denied on top of the built-in baseline (which already "
                     "denies what the security model lists)." },
        { "env", "The environment. Nothing of the launcher's environment leaks in except "
                 "what is kept here." },
};
const size_t acs_profile_n_sections = ELEMENTSOF(acs_profile_section_table);

const acs_profile_key acs_profile_key_table[] = {
        { "profile", "description", ACS_KEY_STRING, OFF(description), .def = "",
          .doc = "One line describing the profile, shown by \\fBacs-launch profiles\\fR. "
                 "Indented continuation lines are joined with a space." },
        { "profile", "inherit", ACS_KEY_REF, OFF(inherit),
          .doc = "A parent profile, by NAME (searched on the profile path) or PATH "
                 "(relative paths are taken from the directory of this file). The parent "
                 "is read first and every key this file sets replaces the parent's value; "
                 "list keys written as \\fIkey\\fR \\fB+=\\fR or \\fB\\-=\\fR add to or "
                 "remove from the inherited list instead. Chains may be 8 profiles deep; "
                 "a loop is an error." },
        { "profile", "locked", ACS_KEY_LOCKED, OFF(locked), .def = "",
          .doc = "Settings that command-line options may not loosen: \\fBtimeout\\fR, "
                 "\\fBmemory\\fR, \\fBmax_tokens\\fR (\\-\\-timeout, \\-\\-memory, "
                 "\\-\\-max\\-tokens may only lower them), \\fBnet\\fR (\\-\\-net may not "
                 "turn none into loopback), \\fBbind\\fR (no \\-\\-bind or \\-\\-ro\\-bind), "
                 "\\fBenv\\fR (no \\-\\-setenv or \\-\\-unsetenv), \\fBworkspace\\fR (no "
                 "\\-\\-workspace), \\fBapply\\fR (no \\-\\-apply), \\fBcpu\\fR, "
                 "\\fBprocesses\\fR, \\fBopen_files\\fR, \\fBfile_size\\fR (their options "
                 "may only lower them)." },

        { "scan", "mode", ACS_KEY_ENUM, OFF(scan_mode), scan_modes, .def = "enforce",
          .doc = "\\fBenforce\\fR refuses a program with findings (exit status 126); "
                 "\\fBwarn\\fR reports findings and runs it; \\fBoff\\fR skips the scan "
                 "(the kernel layer alone)." },
        { "scan", "allow_imports", ACS_KEY_MODULES, OFF(allow_imports), .def = "",
          .doc = "Modules the code may import, in any import form. Everything else is a "
                 "\\fBforbidden-import\\fR finding. An entry \\fIpkg\\fR allows that module "
                 "alone, not its submodules (\\fBjson\\fR does not allow \\fBjson.tool\\fR); "
                 "\\fIpkg.sub\\fR allows one submodule, \\fIpkg\\fR\\fB.*\\fR the package and "
                 "all its submodules (what \\fBdata\\fR does for numpy, pandas and "
                 "matplotlib); \\fB*\\fR allows everything. Empty: no imports at all." },
        { "scan", "deny_builtins", ACS_KEY_IDENTS, OFF(deny_builtins),
          .def = "eval exec compile open __import__ globals locals vars "
                 "breakpoint input help __builtins__ __loader__ __spec__",
          .doc = "Built-in names the code may not use, also when aliased or reached "
                 "through \\fB__builtins__\\fR." },
        { "scan", "deny_attributes", ACS_KEY_IDENTS, OFF(deny_attributes),
          .def = "__subclasses__ __globals__ __builtins__ __bases__ __base__ __mro__ mro "
                 "__class__ __dict__ __code__ __closure__ __self__ __func__ __getattribute__ "
                 "__setattr__ __delattr__ __reduce__ __reduce_ex__ __import__ __loader__ "
                 "__spec__ __traceback__ tb_frame f_globals f_locals f_builtins f_back f_code "
                 "gi_frame gi_code cr_frame cr_code ag_frame ag_code "
                 "os _os sys _sys builtins bltns _builtins io _io codecs inspect importlib _imp "
                 "types _types _thread warnings _warnings marshal linecache tokenize _locale "
                 "subprocess _posixsubprocess "
                 "get_type_hints ForwardRef _eval_type _evaluate __forward_code__ _create_fn _dataclasses singledispatch "
                 "singledispatchmethod get_field vformat Formatter",
          .doc = "Attribute names the code may not touch: the usual ways out of a "
                 "restricted namespace, and the names under which allowed modules "
                 "re-export os, sys and builtins (random._os, collections._sys, ...), "
                 "and helpers that reach attributes or evaluate code given as strings "
                 "(typing.get_type_hints, typing's private ForwardRef._evaluate that "
                 "typing.get_args hands out, string.Formatter.get_field)." },
        { "scan", "deny_members", ACS_KEY_MEMBERS, OFF(deny_members), .def = "",
          .doc = "Members of allowed modules the code may not reach, by qualified name "
                 "\\fIMODULE\\fR\\fB.\\fR\\fINAME\\fR (\\fBos.system\\fR, "
                 "\\fBnumpy.ctypeslib\\fR); \\fB*\\fR after the module matches any "
                 "characters (\\fBos.exec*\\fR, \\fBos.spawn*\\fR). A name is denied with "
                 "everything reached through it, however the code spells it: an attribute chain "
                 "on the module or an alias of it (\\fBimport os as o; o.system\\fR, "
                 "\\fBx = o; x.system\\fR), \\fBgetattr\\fR with a constant name, "
                 "\\fBfrom os import system\\fR, \\fBimport numpy.ctypeslib\\fR; "
                 "\\fBfrom M import *\\fR is refused when M has denied members. A "
                 "\\fBdenied\\-member\\fR finding. This lets a profile allow a module that "
                 "mixes file work with processes or native code and refuse the dangerous part "
                 "precisely; the kernel layer still contains what the module does." },
        { "scan", "max_source", ACS_KEY_SIZE, OFF(max_source), .min = 1, .def = "1M",
          .doc = "The largest source the scan accepts; a larger program is refused." },

        { "python", "interpreter", ACS_KEY_PATH, OFF(interpreter), .def = ACS_PYTHON,
          .def_doc = "the python3 acs\\-launch was built with, e.g. /usr/bin/python3.11",
          .doc = "Absolute path of the interpreter inside the sandbox (it must be under "
                 "one of the \\fBro_bind\\fR paths). If it is missing the run ends with "
                 "exit status 127." },
        { "python", "flags", ACS_KEY_WORDS, OFF(python_flags), .def = "-I -S",
          .doc = "Options passed to the interpreter before the script, separated by "
                 "spaces only. \\fB\\-I\\fR ignores PYTHON* variables and the user's site "
                 "directory; \\fB\\-S\\fR skips the site module, and with it the system's "
                 "installed packages (dist\\-packages) and a \\fBvenv\\fR: a profile for "
                 "installed packages drops it (see \\fBdata\\fR)." },
        { "python", "venv", ACS_KEY_PATH, OFF(venv),
          .doc = "A Python virtual environment (a directory with \\fBpyvenv.cfg\\fR) to use "
                 "read-only: it is bound at the same path, and its \\fBbin/python3\\fR "
                 "runs the program, so its site\\-packages are importable (the scan still "
                 "allows only \\fBallow_imports\\fR). It must have been made from the "
                 "interpreter's Python (its symlinks point into a \\fBro_bind\\fR path) and "
                 "\\fBflags\\fR must not contain \\fB\\-S\\fR, which skips the venv; "
                 "either mistake is an error before the run. \\-\\-venv sets it from the "
                 "command line." },

        { "filesystem", "ro_bind", ACS_KEY_PATHS, OFF(ro_bind), .def = "/usr /etc/ssl",
          .doc = "Host paths shown read-only at the same place; one missing on the host "
                 "is skipped. The launcher adds the /bin, /lib, /lib64 and /sbin symlinks "
                 "into /usr of a merged-/usr system itself. Directories named here that share "
                 "a parent (/etc/ssl and /etc/alternatives) are shown from one overlay of that "
                 "parent, which costs less when the sandbox ends; their names, not their "
                 "parent's other entries, then appear in /proc/self/mountinfo." },
        { "filesystem", "sockets", ACS_KEY_PATHS, OFF(sockets), .def = "",
          .doc = "Host unix sockets the program may connect to (a D-Bus, X11 or ssh-agent "
                 "socket), each bound at the same path. No other host socket is reachable "
                 "through any bind: connect(2) needs write permission on the socket, not a "
                 "writable mount, so read-only binds and a read-only workspace are shown through "
                 "overlayfs (whose files are not the sockets themselves), a socket given as a "
                 "bind source is refused, and the sockets in a read-write bind are covered "
                 "when the sandbox is set up." },
        { "filesystem", "tmpfs", ACS_KEY_PATHS, OFF(tmpfs), .def = "/tmp",
          .doc = "Empty writable tmpfs directories." },
        { "filesystem", "workspace", ACS_KEY_ENUM, OFF(workspace), ws_modes, .def = "overlay",
          .doc = "How /workspace is shown: \\fBoverlay\\fR (writable; writes land in a "
                 "private upper layer and never reach the host directory), "
                 "\\fBreadonly\\fR (a read-only bind of the \\-\\-workspace directory), "
                 "\\fBnone\\fR (no /workspace)." },
        { "filesystem", "workspace_size", ACS_KEY_SIZE, OFF(workspace_size), .min = MIB,
          .def = "128M",
          .doc = "Size of the tmpfs holding the overlay's upper layer: a bound on "
                 "everything the program may write to /workspace." },
        { "filesystem", "hostname", ACS_KEY_HOSTNAME, OFF(hostname), .def = "sandbox",
          .doc = "Host name in the sandbox's UTS namespace." },
        { "filesystem", "protect", ACS_KEY_GLOBS, OFF(protect), .def = ".git",
          .doc = "Patterns of paths that \\-\\-apply and \\fBacs\\-launch apply\\fR never "
                 "write back, on top of the built-in list, which is always on (see "
                 "\\fBPROTECTED PATHS\\fR). A pattern matches at any depth unless it "
                 "begins with '/', which anchors it at /workspace; one that matches a "
                 "directory protects everything below it; letter case is ignored. "
                 "Protected changes are still reported and stay in the patch." },
        { "filesystem", "apply", ACS_KEY_ENUM, OFF(apply), apply_modes, .def = "success",
          .doc = "When \\-\\-apply writes the workspace changes back: \\fBsuccess\\fR only "
                 "after exit status 0, \\fBalways\\fR after any run that was not refused, "
                 "\\fBnever\\fR (\\-\\-apply is an error)." },

        { "limits", "timeout", ACS_KEY_SECONDS, OFF(timeout), .zero_is_none = true, .def = "5",
          .doc = "Wall-clock limit in seconds (fractions allowed). At the limit the whole "
                 "sandbox is killed and the exit status is 124." },
        { "limits", "cpu", ACS_KEY_CPU, OFF(cpu), .zero_is_none = true, .def = "5",
          .doc = "CPU time limit in seconds for the whole sandbox: every process's CPU time "
                 "together (fractions round up). The run's cgroup counts it exactly where one is "
                 "delegated (cpu.stat); otherwise the launcher sums the sandbox's process tree and "
                 "kills it at the limit. Each process also has RLIMIT_CPU one second above it as a "
                 "backstop. A kill at the limit is status \\fBcpu\\fR." },
        { "limits", "memory", ACS_KEY_SIZE, OFF(memory), .min = 16 * MIB, .zero_is_none = true,
          .def = "256M",
          .doc = "Memory limit: the address-space rlimit of each process (RLIMIT_AS), and "
                 "memory.max of the run's cgroup when one is delegated (which also counts shared "
                 "memory and tmpfs pages). Memory that can be pinned outside any address space "
                 "stays bounded without that cgroup too: memfd_create is denied, and SysV IPC is "
                 "sized from this limit in the sandbox's IPC namespace (root launcher) or denied. "
                 "\\fB0\\fR (no limit) allows both." },
        { "limits", "memory_rlimit", ACS_KEY_ENUM, OFF(memory_rlimit), memrl_modes, .def = "always",
          .doc = "Whether \\fBmemory\\fR is also each process's RLIMIT_AS: \\fBalways\\fR, "
                 "or \\fBfallback\\fR: only when the run has no memory cgroup (none is "
                 "delegated here). An address-space limit counts reserved, never-touched "
                 "virtual memory, which breaks runtimes that reserve a lot of it up front "
                 "(Node.js, the JVM, Go, many threads' stacks); the cgroup's memory.max "
                 "counts what is really used. The report's \\fBlimits.enforced.memory\\fR "
                 "says which applied." },
        { "limits", "processes", ACS_KEY_UINT, OFF(processes), .min = 1, .max = 1 << 22,
          .def = "32",
          .doc = "Most processes and threads at once: RLIMIT_NPROC of the sandbox's user, "
                 "and pids.max of the run's cgroup when one is delegated." },
        { "limits", "file_size", ACS_KEY_SIZE, OFF(file_size), .zero_is_none = true,
          .def = "64M", .doc = "Largest file the program may write (RLIMIT_FSIZE)." },
        { "limits", "open_files", ACS_KEY_UINT, OFF(open_files), .min = 8, .max = 1 << 20,
          .def = "64", .doc = "Most open file descriptors (RLIMIT_NOFILE)." },

        /* the output shield caps its budget at 4M tokens (clip.h) */
        { "output", "max_tokens", ACS_KEY_UINT, OFF(max_tokens), .min = 1, .max = 4 << 20,
          .def = "1000",
          .doc = "Token budget for stdout and stderr together; longer output is clipped "
                 "in the middle and the report says how much was left out. Tokens are an "
                 "upper-bound estimate calibrated against the cl100k_base and o200k_base "
                 "tokenizers (see acs-launch(1), OUTPUT AND THE TOKEN BUDGET)." },
        { "output", "ansi", ACS_KEY_ENUM, OFF(ansi), ansi_modes, .def = "strip",
          .doc = "\\fBstrip\\fR removes escape sequences (CSI, OSC, DCS, ...) and terminal "
                 "controls (C0 but tab, newline, carriage return and NUL; DEL; C1) from the "
                 "report's text and from everything printed on the terminal, live or at "
                 "the end, also when a sequence is split across writes; invalid UTF-8 "
                 "becomes U+FFFD. \\fBkeep\\fR leaves the program's bytes as they are: it "
                 "can then set the title, write the clipboard (OSC 52) or make the "
                 "terminal answer into your shell's input \\(em use it only for trusted "
                 "programs." },

        { "network", "mode", ACS_KEY_ENUM, OFF(net), net_modes, .def = "none",
          .doc = "\\fBnone\\fR: a network namespace with no interface at all (and no "
                 "sockets but AF_UNIX); \\fBloopback\\fR: only a private lo, which cannot "
                 "reach the host's 127.0.0.1." },

        { "seccomp", "deny", ACS_KEY_SYSCALLS, OFF(seccomp_deny), .def = "",
          .doc = "System call names (as libseccomp knows them) that fail with EPERM." },

        { "env", "keep", ACS_KEY_ENV_NAMES, OFF(env_keep), .def = "LANG LC_ALL",
          .doc = "Variables copied from the launcher's environment when set there." },
        { "env", "set", ACS_KEY_ENV_SET, OFF(env_set),
          .def = "PYTHONHASHSEED=0 HOME=/workspace PATH=/usr/local/bin:/usr/bin:/bin",
          .doc = "VAR=VALUE assignments, separated by spaces only (a value may contain "
                 "commas but no spaces); they win over \\fBkeep\\fR." },
        { "env", "allow_loader", ACS_KEY_ENV_NAMES, OFF(env_allow_loader), .def = "",
          .doc = "Variables that make the dynamic loader, the C library or the interpreter load "
                 "or run code before the scan, allowed in the environment of a scanned run: "
                 "every \\fBLD_\\fR* variable, \\fBGCONV_PATH\\fR, \\fBLOCPATH\\fR, "
                 "\\fBGLIBC_TUNABLES\\fR, a \\fBLANG\\fR, \\fBLANGUAGE\\fR or "
                 "\\fBLC_\\fR* whose value holds a '/' (a locale file), and, when \\fB[python] flags\\fR lack "
                 "\\-I and \\-E, the \\fBPYTHON\\fR* variables that change what "
                 "start-up imports or runs (all but PYTHONHASHSEED, PYTHONUNBUFFERED, "
                 "PYTHONUTF8 and a few more that load nothing); acs-launch(1), ENVIRONMENT, "
                 "says why each. Such a variable from "
                 "\\fBset\\fR, \\fBkeep\\fR or \\-\\-setenv that is not listed here "
                 "is an error (exit status 125); a listed one is passed, and the report's "
                 "\\fBscan.bypassable\\fR says the verdict does not cover what it runs. "
                 "Not checked for exec or scan mode off, where nothing is scanned." },
};
const size_t acs_profile_n_keys = ELEMENTSOF(acs_profile_key_table);

const acs_profile_key *acs_profile_key_find(const char *section, const char *key)
{
        for (size_t i = 0; i < acs_profile_n_keys; i++)
                if (strcmp(acs_profile_key_table[i].section, section) == 0 &&
                    strcmp(acs_profile_key_table[i].key, key) == 0)
                        return &acs_profile_key_table[i];
        return NULL;
}

bool acs_profile_section_known(const char *section)
{
        for (size_t i = 0; i < acs_profile_n_sections; i++)
                if (strcmp(acs_profile_section_table[i].name, section) == 0)
                        return true;
        return false;
}

bool acs_key_is_list(const acs_profile_key *k) { return k->type >= ACS_KEY_PATHS; }

const char *acs_key_type_name(const acs_profile_key *k)
{
        switch (k->type) {
        case ACS_KEY_STRING: return "text";
        case ACS_KEY_REF: return "profile";
        case ACS_KEY_PATH: return "path";
        case ACS_KEY_HOSTNAME: return "hostname";
        case ACS_KEY_ENUM: return "choice";
        case ACS_KEY_SIZE: return "size";
        case ACS_KEY_SECONDS: return "seconds";
        case ACS_KEY_CPU: return "seconds";
        case ACS_KEY_UINT: return "number";
        case ACS_KEY_PATHS: return "list of paths";
        case ACS_KEY_MODULES: return "list of modules";
        case ACS_KEY_IDENTS: return "list of names";
        case ACS_KEY_SYSCALLS: return "list of syscalls";
        case ACS_KEY_ENV_NAMES: return "list of variables";
        case ACS_KEY_ENV_SET: return "list of VAR=VALUE";
        case ACS_KEY_WORDS: return "words";
        case ACS_KEY_GLOBS: return "list of globs";
        case ACS_KEY_LOCKED: return "list of settings";
        case ACS_KEY_MEMBERS: return "list of qualified names";
        }
        return "value";
}

static void join_names(const char *const *names, const char *sep, char *buf, size_t size)
{
        size_t n = 0;
        buf[0] = '\0';
        for (size_t i = 0; names[i] && n < size; i++)
                n += snprintf(buf + n, size - n, "%s%s", i ? sep : "", names[i]);
}

const char *acs_key_expected(const acs_profile_key *k, char *buf, size_t size)
{
        char names[256];

        switch (k->type) {
        case ACS_KEY_ENUM:
                join_names(k->enum_names, " | ", names, sizeof names);
                snprintf(buf, size, "one of %s", names);
                return buf;
        case ACS_KEY_LOCKED:
                join_names(acs_profile_lockable, " ", names, sizeof names);
                snprintf(buf, size, "settings from: %s", names);
                return buf;
        case ACS_KEY_SIZE: {
                int n = snprintf(buf, size, "a size such as 64M (K, M, G suffixes)");
                if (k->min >= MIB && n >= 0 && (size_t)n < size)
                        n += snprintf(buf + n, size - n, " of at least %" PRIu64 "M", k->min / MIB);
                if (k->zero_is_none && n >= 0 && (size_t)n < size)
                        snprintf(buf + n, size - n, ", or 0 for none");
                return buf;
        }
        case ACS_KEY_UINT:
                if (k->zero_is_none)
                        snprintf(buf, size, "a whole number up to %" PRIu64 ", 0 for none", k->max);
                else
                        snprintf(buf, size, "a whole number from %" PRIu64 " to %" PRIu64, k->min,
                                 k->max);
                return buf;
        case ACS_KEY_SECONDS:
        case ACS_KEY_CPU: return "seconds such as 5 or 0.5 (decimal digits, at most 1000000000), 0 for none";
        case ACS_KEY_STRING: return "text";
        case ACS_KEY_REF: return "a profile name or path";
        case ACS_KEY_PATH: return "an absolute path without '..'";
        case ACS_KEY_HOSTNAME: return "a host name of letters, digits, '-' and '.', at most 64";
        case ACS_KEY_PATHS: return "absolute paths without '..', separated by spaces or commas";
        case ACS_KEY_MODULES: return "Python module names such as json, xml.dom or numpy.*";
        case ACS_KEY_IDENTS: return "Python identifiers";
        case ACS_KEY_SYSCALLS: return "system call names known to libseccomp";
        case ACS_KEY_ENV_NAMES: return "environment variable names";
        case ACS_KEY_ENV_SET: return "VAR=VALUE assignments separated by spaces";
        case ACS_KEY_WORDS: return "interpreter options separated by spaces";
        case ACS_KEY_GLOBS: return "patterns (see PROTECTED PATHS) without '..'";
        case ACS_KEY_MEMBERS: return "qualified names such as os.system or os.exec* (a module, a dot, a name)";
        }
        return "a value";
}

/* ---- element validators -------------------------------------------------- */

static bool is_ident(const char *s, size_t n)
{
        if (n == 0 || !(isalpha((unsigned char)s[0]) || s[0] == '_'))
                return false;
        for (size_t i = 1; i < n; i++)
                if (!(isalnum((unsigned char)s[i]) || s[i] == '_'))
                        return false;
        return true;
}

/* json, xml.dom, or numpy.* (the package and all its submodules) */
static bool valid_module(const char *s)
{
        size_t len = strlen(s);
        char buf[256];
        if (len > 2 && len < sizeof buf && strcmp(s + len - 2, ".*") == 0) {
                memcpy(buf, s, len - 2);
                buf[len - 2] = '\0';
                s = buf;
        }
        for (;;) {
                size_t n = strcspn(s, ".");
                if (!is_ident(s, n))
                        return false;
                if (!s[n])
                        return true;
                s += n + 1;
        }
}

static bool has_dotdot(const char *s)
{
        for (const char *p = s; *p;) {
                size_t n = strcspn(p, "/");
                if (n == 2 && p[0] == '.' && p[1] == '.')
                        return true;
                p += n;
                while (*p == '/')
                        p++;
        }
        return false;
}

bool acs_path_is_clean_abs(const char *s)
{
        return s[0] == '/' && !has_dotdot(s) && strlen(s) < 4096;
}

static bool valid_hostname(const char *s)
{
        size_t n = strlen(s);
        if (n == 0 || n > 64 || s[0] == '-' || s[0] == '.')
                return false;
        for (size_t i = 0; i < n; i++)
                if (!(isalnum((unsigned char)s[i]) || s[i] == '-' || s[i] == '.'))
                        return false;
        return true;
}

static const char *canonical_lock(const char *s)
{
        for (size_t i = 0; acs_profile_lockable[i]; i++)
                if (strcmp(s, acs_profile_lockable[i]) == 0)
                        return acs_profile_lockable[i];
        for (size_t i = 0; i < ELEMENTSOF(lock_aliases); i++)
                if (strcmp(s, lock_aliases[i].alias) == 0)
                        return lock_aliases[i].name;
        return NULL;
}

/* MODULE.NAME[.NAME...]: identifiers, '*' allowed after the first part. */
static bool valid_member(const char *s)
{
        size_t n = strcspn(s, ".");
        if (!is_ident(s, n) || !s[n])
                return false;
        for (s += n + 1;; s += n + 1) {
                n = strcspn(s, ".");
                bool okp = n > 0;
                for (size_t i = 0; i < n && okp; i++)
                        okp = isalnum((unsigned char)s[i]) || s[i] == '_' || s[i] == '*';
                if (!okp || (isdigit((unsigned char)s[0])))
                        return false;
                if (!s[n])
                        return true;
        }
}

/* Checks one list element; returns the string to store (maybe canonical) or NULL. */
static const char *check_element(const acs_profile_key *k, const char *s)
{
        switch (k->type) {
        case ACS_KEY_PATHS: return acs_path_is_clean_abs(s) ? s : NULL;
        case ACS_KEY_MODULES: return valid_module(s) ? s : NULL;
        case ACS_KEY_IDENTS: return is_ident(s, strlen(s)) ? s : NULL;
        case ACS_KEY_ENV_NAMES: return is_ident(s, strlen(s)) ? s : NULL;
        case ACS_KEY_SYSCALLS:
                for (const char *p = s; *p; p++)
                        if (!(islower((unsigned char)*p) || isdigit((unsigned char)*p) || *p == '_'))
                                return NULL;
                return seccomp_syscall_resolve_name(s) != __NR_SCMP_ERROR ? s : NULL;
        case ACS_KEY_ENV_SET: {
                const char *eq = strchr(s, '=');
                return eq && is_ident(s, (size_t)(eq - s)) ? s : NULL;
        }
        case ACS_KEY_WORDS: return s;
        case ACS_KEY_GLOBS: return s[strspn(s, "/")] && !has_dotdot(s) ? s : NULL; /* '/' anchors */
        case ACS_KEY_LOCKED: return canonical_lock(s);
        case ACS_KEY_MEMBERS: return valid_member(s) ? s : NULL;
        default: return NULL;
        }
}

/* ---- applying a value ------------------------------------------------------ */

static void set_bad(char *badbuf, size_t badsize, const char *s, size_t n)
{
        if (badsize == 0)
                return;
        snprintf(badbuf, badsize, "%.*s", (int)(n < badsize - 1 ? n : badsize - 1), s);
}

static int split_list(const acs_profile_key *k, const char *value, char ***ret, char *badbuf,
                      size_t badsize)
{
        const char *seps = (k->type == ACS_KEY_WORDS || k->type == ACS_KEY_ENV_SET) ? " \t\n"
                                                                                   : " \t\n,";
        _cleanup_strv_free_ char **v = calloc(1, sizeof(char *));
        if (!v)
                return -ENOMEM;
        for (const char *p = value;;) {
                p += strspn(p, seps);
                if (!*p)
                        break;
                size_t n = strcspn(p, seps);
                _cleanup_free_ char *el = strndup(p, n);
                if (!el)
                        return -ENOMEM;
                const char *store = check_element(k, el);
                if (!store) {
                        set_bad(badbuf, badsize, p, n);
                        return -EINVAL;
                }
                if (!acs_strv_contains(v, store) && acs_strv_push(&v, store) < 0)
                        return -ENOMEM;
                p += n;
        }
        *ret = TAKE_PTR(v);
        return 0;
}

static int apply_list(const acs_profile_key *k, acs_profile *p, acs_key_op op, const char *value,
                      char *badbuf, size_t badsize)
{
        char ***field = (char ***)((char *)p + k->offset);
        _cleanup_strv_free_ char **items = NULL;
        int r = split_list(k, value, &items, badbuf, badsize);
        if (r < 0)
                return r;

        if (op == ACS_OP_SET) {
                acs_strv_free(*field);
                *field = TAKE_PTR(items);
                return 0;
        }
        if (!*field && !(*field = calloc(1, sizeof(char *))))
                return -ENOMEM;
        for (char **i = items; *i; i++) {
                if (op == ACS_OP_APPEND) {
                        if (!acs_strv_contains(*field, *i) && acs_strv_push(field, *i) < 0)
                                return -ENOMEM;
                        continue;
                }
                /* remove: compact in place */
                size_t w = 0;
                for (size_t j = 0; (*field)[j]; j++) {
                        if (strcmp((*field)[j], *i) == 0)
                                free((*field)[j]);
                        else
                                (*field)[w++] = (*field)[j];
                }
                (*field)[w] = NULL;
        }
        return 0;
}

static int parse_number(const acs_profile_key *k, const char *value, uint64_t *ret)
{
        if (k->zero_is_none && (strcmp(value, "none") == 0 || strcmp(value, "unlimited") == 0)) {
                *ret = 0;
                return 0;
        }
        uint64_t v;
        int r = k->type == ACS_KEY_SIZE ? acs_parse_size(value, &v) : acs_parse_uint(value, &v);
        if (r < 0)
                return -EINVAL;
        if (v == 0 && k->zero_is_none) {
                *ret = 0;
                return 0;
        }
        if (v < k->min || (k->max && v > k->max))
                return -EINVAL;
        *ret = v;
        return 0;
}

static int apply_scalar(const acs_profile_key *k, acs_profile *p, const char *value)
{
        void *field = (char *)p + k->offset;
        uint64_t u;
        double d;

        switch (k->type) {
        case ACS_KEY_ENUM:
                for (int i = 0; k->enum_names[i]; i++)
                        if (strcmp(value, k->enum_names[i]) == 0) {
                                *(int *)field = i;
                                return 0;
                        }
                return -EINVAL;
        case ACS_KEY_SIZE:
        case ACS_KEY_UINT:
                if (parse_number(k, value, &u) < 0)
                        return -EINVAL;
                *(uint64_t *)field = u;
                return 0;
        case ACS_KEY_SECONDS:
        case ACS_KEY_CPU:
                if (strcmp(value, "none") == 0 || strcmp(value, "unlimited") == 0)
                        d = 0;
                else if (acs_parse_seconds(value, &d) < 0)
                        return -EINVAL;
                if (k->type == ACS_KEY_SECONDS)
                        *(double *)field = d;
                else
                        *(uint64_t *)field = (uint64_t)ceil(d);
                return 0;
        case ACS_KEY_PATH:
        case ACS_KEY_HOSTNAME:
        case ACS_KEY_REF:
        case ACS_KEY_STRING: {
                if (k->type == ACS_KEY_PATH && !acs_path_is_clean_abs(value))
                        return -EINVAL;
                if (k->type == ACS_KEY_HOSTNAME && !valid_hostname(value))
                        return -EINVAL;
                if (k->type == ACS_KEY_REF && (!*value || strpbrk(value, " \t,")))
                        return -EINVAL;
                char *copy = strdup(value);
                if (!copy)
                        return -ENOMEM;
                free(*(char **)field);
                *(char **)field = copy;
                return 0;
        }
        default: return -EINVAL;
        }
}

int acs_profile_key_apply(const acs_profile_key *k, acs_profile *p, acs_key_op op,
                          const char *value, char *badbuf, size_t badsize)
{
        if (badsize)
                badbuf[0] = '\0';
        if (acs_key_is_list(k))
                return apply_list(k, p, op, value, badbuf, badsize);
        if (op != ACS_OP_SET) {
                set_bad(badbuf, badsize, value, strlen(value));
                return -EINVAL;
        }
        int r = apply_scalar(k, p, value);
        if (r == -EINVAL)
                set_bad(badbuf, badsize, value, strlen(value));
        return r;
}

void acs_profile_free(acs_profile *p)
{
        if (!p)
                return;
        for (size_t i = 0; i < acs_profile_n_keys; i++) {
                const acs_profile_key *k = &acs_profile_key_table[i];
                void *field = (char *)p + k->offset;
                if (acs_key_is_list(k))
                        acs_strv_free(*(char ***)field);
                else if (k->type <= ACS_KEY_HOSTNAME)
                        free(*(char **)field);
        }
        free(p->name);
        free(p->path);
        free(p);
}

int acs_profile_new_defaults(acs_profile **ret)
{
        _cleanup_profile_ acs_profile *p = calloc(1, sizeof *p);
        char bad[64];
        if (!p)
                return -ENOMEM;
        for (size_t i = 0; i < acs_profile_n_keys; i++) {
                const acs_profile_key *k = &acs_profile_key_table[i];
                if (!k->def)
                        continue;
                int r = acs_profile_key_apply(k, p, ACS_OP_SET, k->def, bad, sizeof bad);
                if (r < 0)
                        return r; /* a bad default is a bug the unit test catches */
        }
        *ret = TAKE_PTR(p);
        return 0;
}

/* ---- names of enum values ----------------------------------------------------- */

#define ENUM_TO_STRING(fn, type, names)                                                     \
        const char *fn(type m)                                                              \
        {                                                                                   \
                return (unsigned)m < ELEMENTSOF(names) - 1 ? names[m] : "?";                \
        }
ENUM_TO_STRING(acs_scan_mode_to_string, acs_scan_mode, scan_modes)
ENUM_TO_STRING(acs_net_mode_to_string, acs_net_mode, net_modes)
ENUM_TO_STRING(acs_ws_mode_to_string, acs_ws_mode, ws_modes)
ENUM_TO_STRING(acs_apply_mode_to_string, acs_apply_mode, apply_modes)
ENUM_TO_STRING(acs_ansi_mode_to_string, acs_ansi_mode, ansi_modes)
ENUM_TO_STRING(acs_memrl_mode_to_string, acs_memrl_mode, memrl_modes)

bool acs_profile_is_locked(const acs_profile *p, const char *setting)
{
        const char *c = canonical_lock(setting);
        return c && p && acs_strv_contains(p->locked, c);
}

/* ---- suggestions -------------------------------------------------------------- */

size_t acs_edit_distance(const char *a, const char *b)
{
        size_t la = strlen(a), lb = strlen(b);
        if (la > 63 || lb > 63)
                return SIZE_MAX;
        size_t d[64][64];
        for (size_t i = 0; i <= la; i++)
                d[i][0] = i;
        for (size_t j = 0; j <= lb; j++)
                d[0][j] = j;
        for (size_t i = 1; i <= la; i++)
                for (size_t j = 1; j <= lb; j++) {
                        size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
                        size_t v = d[i - 1][j - 1] + cost;
                        if (d[i - 1][j] + 1 < v)
                                v = d[i - 1][j] + 1;
                        if (d[i][j - 1] + 1 < v)
                                v = d[i][j - 1] + 1;
                        if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
                            d[i - 2][j - 2] + 1 < v)
                                v = d[i - 2][j - 2] + 1; /* transposition */
                        d[i][j] = v;
                }
        return d[la][lb];
}

/* ---- the man page's KEYS part ------------------------------------------------------ */

static void man_text(FILE *out, const char *s)
{
        /* Table text is already roff-safe; only a leading '.' or '\'' needs care. */
        if (*s == '.' || *s == '\'')
                fputs("\\&", out);
        fputs(s, out);
}

void acs_profile_write_man_keys(FILE *out)
{
        char buf[256];
        for (size_t s = 0; s < acs_profile_n_sections; s++) {
                const acs_profile_section *sec = &acs_profile_section_table[s];
                fprintf(out, ".SS [%s]\n", sec->name);
                man_text(out, sec->doc);
                fputc('\n', out);
                for (size_t i = 0; i < acs_profile_n_keys; i++) {
                        const acs_profile_key *k = &acs_profile_key_table[i];
                        if (strcmp(k->section, sec->name) != 0)
                                continue;
                        fprintf(out, ".TP\n\\fB%s\\fR = \\fI%s\\fR\n", k->key, acs_key_type_name(k));
                        man_text(out, k->doc);
                        if (k->def_doc)
                                fprintf(out, "\n.br\nDefault: %s.", k->def_doc);
                        else if (k->def && *k->def)
                                fprintf(out, "\n.br\nDefault: \\fB%s\\fR.", k->def);
                        else if (k->def)
                                fputs("\n.br\nDefault: empty.", out);
                        if (k->type != ACS_KEY_STRING)
                                fprintf(out, "\n.br\nExpected: %s.", acs_key_expected(k, buf, sizeof buf));
                        fputc('\n', out);
                }
        }
}
