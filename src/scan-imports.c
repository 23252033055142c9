/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Imports (every form; the walk reaches them at any depth) and the checks
 * that can only be decided once every import is known: module aliases,
 * `x = module` copies, `T = type`.
 */
#include <dirent.h>
#include <stdio.h>
#include <string.h>
#include <stdlib.h>
#include <sys/stat.h>

#include "scan-walk-int.h"

#define PNAME(w) ((w)->p->name ? (w)->p->name : "?")

/* ---- imports: every form, at any depth (the walk reaches them all) ---- */

/* name (its first len bytes) now stands for module (a new reference, stolen). */
static void alias_set(walk *w, const char *name, size_t len, PyObject *module)
{
        PyObject *k = PyUnicode_FromStringAndSize(name, (Py_ssize_t)len);
        if (!k || !module || PyDict_SetItem(w->aliases, k, module) < 0)
                w->err = -ENOMEM;
        Py_XDECREF(k);
        Py_XDECREF(module);
}

void scan_check_module_name(walk *w, PyObject *node, const char *dotted)
{
        if (!acs_rules_import_allowed(w->p, dotted))
                scan_report_at(w, node, R_IMPORT, dotted);
}

void scan_check_import(walk *w, PyObject *node)
{
        PyObject *names = scan_get(node, S_names);
        for (Py_ssize_t i = 0; names && PyList_Check(names) && i < PyList_GET_SIZE(names); i++) {
                PyObject *a = PyList_GET_ITEM(names, i);
                const char *n = scan_get_str(a, S_name), *as = scan_get_str(a, S_asname);
                if (!n)
                        continue;
                scan_check_module_name(w, node, n);
                bool allowed = acs_rules_import_allowed(w->p, n) && !scan_members_check_import(w, node, n);
                if (as) {
                        alias_set(w, as, strlen(as), PyUnicode_FromString(n));
                        if (allowed)
                                scan_members_bind(w, as, n);
                } else { /* import a.b binds a */
                        size_t first = strcspn(n, ".");
                        alias_set(w, n, first, PyUnicode_FromStringAndSize(n, (Py_ssize_t)first));
                        if (allowed) { /* import os.path binds os: scan_members_resolve judges os.x */
                                char *f = strndup(n, first);
                                if (!f)
                                        w->err = -ENOMEM;
                                else
                                        scan_members_bind(w, f, f);
                                free(f);
                        }
                }
        }
        Py_XDECREF(names);
}

/* A name taken out of a module: the same rules as module.name. */
static void check_from_name(walk *w, PyObject *node, const char *mod, const char *n)
{
        const char *rule = acs_rules_classify_attr(w->p, n);
        if (rule)
                scan_report_at(w, node, rule, n);
        else if (acs_rules_is_private(n)) {
                int line, col;
                scan_node_pos(node, &line, &col);
                scan_report(w, line, col, R_PRIVATE, n, "'%s' is a private name of module '%s'; %s", n,
                       mod, acs_rules_hint(R_PRIVATE, n));
        } else if (acs_rules_dangerous_module(n, false) && !acs_rules_import_allowed(w->p, n)) {
                int line, col;
                scan_node_pos(node, &line, &col);
                scan_report(w, line, col, R_IMPORT, n,
                       "'from %s import %s' reaches module '%s', which profile %s does not allow (allowed: %s)",
                       mod, n, n, PNAME(w), w->allowed);
        }
        if (strcmp(mod, "builtins") == 0 && scan_denied_builtin(w, n))
                scan_report_at(w, node, R_BUILTIN, n);
}

/*
 * Is pkg.name a submodule (a file or directory in pkg's directory on
 * sys.path) rather than a name defined in pkg? `from json import tool`
 * imports json.tool, which allowing json does not allow.
 */
static bool is_submodule(const char *pkg, const char *name)
{
        /* The standard library of the Python the scanners are built for: the
         * same for check's embedded interpreter (whose sys.path is never set
         * up) and the sandbox's (whatever its sys.path). */
        static const char *const dirs[] = {ACS_PYTHON_STDLIB, NULL};
        size_t nl = strlen(name);
        for (const char *const *dp = dirs; *dp; dp++) {
                const char *dir = *dp;
                char *p = NULL;
                struct stat st;
                if (asprintf(&p, "%s/%s", dir, pkg) < 0)
                        continue;
                for (char *c = p + strlen(dir) + 1; *c; c++)
                        if (*c == '.')
                                *c = '/';
                DIR *d = stat(p, &st) == 0 && S_ISDIR(st.st_mode) ? opendir(p) : NULL;
                free(p);
                for (struct dirent *e; d && (e = readdir(d));) {
                        /* the rest after name only once d_name is known to hold it:
                         * a name longer than d_name[] must not point past it */
                        if (strncmp(e->d_name, name, nl) != 0)
                                continue;
                        const char *x = e->d_name + nl;
                        if (*x == '\0' || strcmp(x, ".py") == 0 || strcmp(x, ".pyc") == 0 ||
                            (*x == '.' && strlen(x) > 3 && strcmp(x + strlen(x) - 3, ".so") == 0)) {
                                closedir(d);
                                return true;
                        }
                }
                if (d)
                        closedir(d);
        }
        return false;
}

void scan_check_import_from(walk *w, PyObject *node)
{
        const char *mod = scan_get_str(node, S_module);
        int level = scan_get_int(node, S_level);
        if (level > 0) {
                char *name = NULL;
                int line, col;
                if (asprintf(&name, "%.*s%s", level > 8 ? 8 : level, "........", mod ? mod : "") < 0) {
                        w->err = -ENOMEM;
                        return;
                }
                scan_node_pos(node, &line, &col);
                scan_report(w, line, col, R_IMPORT, name,
                       "relative import '%s' is not allowed: the program runs as __main__, not in a package (allowed: %s)",
                       name, w->allowed);
                free(name);
                return;
        }
        if (!mod || strcmp(mod, "__future__") == 0)
                return;
        PyObject *names = scan_get(node, S_names);
        /* from os import path: allowed where os.path is, though os is not */
        bool mod_ok = acs_rules_import_allowed(w->p, mod), all_sub = !mod_ok;
        for (Py_ssize_t i = 0; all_sub && names && PyList_Check(names) && i < PyList_GET_SIZE(names); i++) {
                const char *n = scan_get_str(PyList_GET_ITEM(names, i), S_name);
                char *full = NULL;
                if (asprintf(&full, "%s.%s", mod, n ? n : "*") < 0) {
                        w->err = -ENOMEM;
                        return;
                }
                all_sub = n && strcmp(n, "*") != 0 && acs_rules_import_allowed(w->p, full);
                free(full);
        }
        if (!all_sub)
                scan_check_module_name(w, node, mod);
        for (Py_ssize_t i = 0; names && PyList_Check(names) && i < PyList_GET_SIZE(names); i++) {
                PyObject *a = PyList_GET_ITEM(names, i);
                const char *n = scan_get_str(a, S_name), *as = scan_get_str(a, S_asname);
                if (n && strcmp(n, "*") == 0 && mod_ok)
                        scan_members_check_star(w, node, mod);
                if (!n || strcmp(n, "*") == 0)
                        continue;
                check_from_name(w, node, mod, n);
                if (mod_ok) {
                        char *full = NULL;
                        if (asprintf(&full, "%s.%s", mod, n) < 0)
                                w->err = -ENOMEM;
                        else if (!acs_rules_import_allowed(w->p, full) && is_submodule(mod, n))
                                scan_report_at(w, node, R_IMPORT, full);
                        free(full);
                }
                alias_set(w, as ? as : n, strlen(as ? as : n), PyUnicode_FromFormat("%s.%s", mod, n));
                if (mod_ok || all_sub) {
                        char *full = NULL;
                        if (asprintf(&full, "%s.%s", mod, n) < 0)
                                w->err = -ENOMEM;
                        else if (!scan_members_check_import(w, node, full))
                                scan_members_bind(w, as ? as : n, full);
                        free(full);
                }
        }
        Py_XDECREF(names);
}

/* ---- after the walk: aliases are known ---- */

/* dst -> src of the first `dst = src` for each dst: one hash lookup per step below. */
static PyObject *copy_map(walk *w)
{
        PyObject *m = PyDict_New();
        for (Py_ssize_t i = 0; m && i < PyList_GET_SIZE(w->copies); i++) {
                PyObject *pair = PyList_GET_ITEM(w->copies, i);
                if (!PyDict_SetDefault(m, PyTuple_GET_ITEM(pair, 0), PyTuple_GET_ITEM(pair, 1)))
                        Py_CLEAR(m);
        }
        return m;
}

static PyObject *resolve_copy(walk *w, PyObject *copies, PyObject *name)
{
        /* follow dst <- src chains a few steps: m = random; r = m */
        for (int step = 0; step < 8; step++) {
                PyObject *next = PyDict_GetItem(copies, name);
                if (!next || PyDict_GetItem(w->aliases, name))
                        break;
                name = next;
        }
        return name;
}

void scan_resolve_cands(walk *w)
{
        PyObject *copies = w->n_cands ? copy_map(w) : NULL;
        if (w->n_cands && !copies) {
                PyErr_Clear();
                w->err = -ENOMEM;
                return;
        }
        for (size_t i = 0; i < w->n_cands && !w->err; i++) {
                cand *c = &w->cands[i];
                PyObject *name = PyUnicode_FromString(c->recv);
                if (!name) {
                        w->err = -ENOMEM;
                        break;
                }
                PyObject *res = resolve_copy(w, copies, name);
                PyObject *mod = PyDict_GetItem(w->aliases, res);
                const char *m = mod ? PyUnicode_AsUTF8(mod) : NULL;
                const char *r = PyUnicode_AsUTF8(res);
                if (c->kind == CAND_MODULE_ATTR && m) {
                        if (acs_rules_is_private(c->attr))
                                scan_report(w, c->line, c->col, R_PRIVATE, c->attr,
                                       "'%s' is a private attribute of module '%s'; %s", c->attr, m,
                                       acs_rules_hint(R_PRIVATE, c->attr));
                        else if (acs_rules_dangerous_module(c->attr, false) &&
                                 !acs_rules_import_allowed(w->p, c->attr))
                                scan_report(w, c->line, c->col, R_IMPORT, c->attr,
                                       "'%s.%s' reaches module '%s', which profile %s does not allow (allowed: %s)",
                                       c->recv, c->attr, c->attr, PNAME(w), w->allowed);
                } else if (c->kind == CAND_MODULE_WRITE && m) {
                        scan_report(w, c->line, c->col, R_WRITE, c->attr,
                               "changing attribute '%s' of '%s' (%s, bound by an import) changes it for every "
                               "library that uses it; keep your own copy or wrap it instead",
                               c->attr, c->recv, m);
                } else if (c->kind == CAND_BUILTINS_ATTR && m && strcmp(m, "builtins") == 0 &&
                           scan_denied_builtin(w, c->attr)) {
                        scan_report(w, c->line, c->col, R_BUILTIN, c->attr,
                               "builtin '%s' is denied by profile %s; %s", c->attr, PNAME(w),
                               acs_rules_hint(R_BUILTIN, c->attr));
                } else if (c->kind == CAND_TYPE_CALL && c->attr[0] == '3' && res != name && r &&
                           strcmp(r, "type") == 0) {
                        scan_report(w, c->line, c->col, R_TYPE, "type",
                               "type() (called as '%s') with three arguments creates a class at run time; %s",
                               c->recv, acs_rules_hint(R_TYPE, "type"));
                }
                Py_DECREF(name);
                PyErr_Clear();
        }
        Py_XDECREF(copies);
}

