/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Members of modules judged by qualified name: `[scan] deny_members`
 * (os.system, numpy.ctypeslib, os.exec*) and modules allowed only in part
 * (`allow_imports = os.path` without os: `import os.path` binds the name os
 * to all of os, so os.path.join is fine and os.system is not).
 *
 * During the walk every attribute chain rooted at a name (os.path.join,
 * np.ctypeslib.load_library) and every getattr(NAME, "const") is noted, at
 * the cost of one list append; allowed imports note which module each name
 * is bound to. After the walk, when every binding is known (an import may
 * come after the function that uses it), a chain whose root name a module is
 * bound to (directly or through `x = name` copies) becomes the qualified name
 * MODULE.a.b and is judged. A name bound to several modules is judged as
 * each. What this does not see: a module reached through a container, a call
 * or a parameter, and attribute names computed at run time (refused as
 * reflective-access elsewhere); the kernel layer contains those.
 */
#include <stdio.h>
#include <string.h>

#include "scan-walk-int.h"

#define PNAME(w) ((w)->p->name ? (w)->p->name : "?")
#define MAX_QUAL 512

static PyObject *list_of(walk *w, PyObject **slot, bool dict)
{
        if (!*slot && !(*slot = dict ? PyDict_New() : PyList_New(0))) {
                PyErr_Clear();
                w->err = -ENOMEM;
        }
        return *slot;
}

void scan_members_bind(walk *w, const char *name, const char *module)
{
        if (!w->members || !list_of(w, &w->mod_binds, true))
                return;
        PyObject *l = PyDict_GetItemString(w->mod_binds, name), *m = PyUnicode_FromString(module);
        if (!l && (l = PyList_New(0))) {
                if (PyDict_SetItemString(w->mod_binds, name, l) < 0)
                        w->err = -ENOMEM;
                Py_DECREF(l); /* the dict holds it */
        }
        if (!l || !m || PyList_Append(l, m) < 0)
                w->err = -ENOMEM;
        Py_XDECREF(m);
        PyErr_Clear();
}

void scan_members_note_chain(walk *w, PyObject *attr_node)
{
        if (w->members && list_of(w, &w->chains, false) && PyList_Append(w->chains, attr_node) < 0)
                w->err = -ENOMEM;
}

void scan_members_note_getattr(walk *w, PyObject *node, PyObject *recv, const char *attr)
{
        if (!w->members || !recv || !list_of(w, &w->chains, false))
                return;
        PyObject *t = Py_BuildValue("(OOs)", node, recv, attr);
        if (!t || PyList_Append(w->chains, t) < 0)
                w->err = -ENOMEM;
        Py_XDECREF(t);
        PyErr_Clear();
}

/* "a.b.c" of an Attribute/Name chain into buf, the root Name's id in *root. */
static bool chain_text(PyObject *node, char *buf, size_t size, const char **root)
{
        const char *parts[32];
        size_t n = 0;
        PyObject *cur = node;
        while (is(cur, T_Attribute) && n < ELEMENTSOF(parts)) {
                parts[n++] = scan_get_str(cur, S_attr); /* the tree keeps each str alive */
                PyObject *v = scan_get(cur, S_value);
                Py_XDECREF(v); /* borrowed from here on: the parent node holds it */
                cur = v;
        }
        if (!is(cur, T_Name) || !(*root = scan_name_id(cur)))
                return false;
        size_t len = 0;
        buf[0] = '\0';
        while (n-- > 0) {
                if (!parts[n])
                        return false;
                int k = snprintf(buf + len, size - len, "%s%s", len ? "." : "", parts[n]);
                if (k < 0 || (size_t)k >= size - len)
                        return false;
                len += (size_t)k;
        }
        return true;
}

/* The modules NAME stands for, following `x = name` copies; borrowed or NULL. */
static PyObject *modules_of(walk *w, const char *root)
{
        PyObject *name = PyUnicode_FromString(root), *mods = NULL;
        for (int step = 0; name && step < 8; step++) {
                if ((mods = PyDict_GetItem(w->mod_binds, name)))
                        break;
                PyObject *next = NULL;
                for (Py_ssize_t i = 0; w->copies && i < PyList_GET_SIZE(w->copies); i++) {
                        PyObject *pair = PyList_GET_ITEM(w->copies, i);
                        if (PyUnicode_Compare(PyTuple_GET_ITEM(pair, 0), name) == 0) {
                                next = PyTuple_GET_ITEM(pair, 1);
                                break;
                        }
                }
                Py_DECREF(name);
                name = next;
                Py_XINCREF(name);
        }
        Py_XDECREF(name);
        PyErr_Clear();
        return mods;
}

/* Judge MODULE.rest: a denied member, or a part of a partly allowed module. */
static void judge(walk *w, int line, int col, const char *module, const char *rest)
{
        char q[MAX_QUAL];
        int n = snprintf(q, sizeof q, "%s.%s", module, rest);
        if (n < 0 || (size_t)n >= sizeof q)
                return;
        const char *pat = NULL;
        size_t len = acs_rules_member_denied(w->p, q, &pat);
        if (len) {
                q[len] = '\0';
                scan_report(w, line, col, R_MEMBER, q, "'%s' is denied by profile %s (deny_members: %s); %s",
                            q, PNAME(w), pat, acs_rules_hint(R_MEMBER, q));
                return;
        }
        if (acs_rules_import_allowed(w->p, module) || !acs_rules_import_partial(w->p, module) ||
            acs_rules_name_allowed(w->p, q))
                return;
        q[strlen(module) + 1 + strcspn(rest, ".")] = '\0'; /* MODULE.first */
        char *under = acs_rules_allowed_under(w->p, module);
        scan_report(w, line, col, R_IMPORT, q,
               "'%s' is not allowed by profile %s: of module '%s' it allows only %s (allowed: %s)", q, PNAME(w),
               module, under ? under : "submodules", w->allowed);
        free(under);
}

static void judge_chain(walk *w, PyObject *item)
{
        char rest[MAX_QUAL];
        const char *root = NULL;
        PyObject *node = item;
        if (PyTuple_Check(item)) { /* getattr(recv, "attr") */
                node = PyTuple_GET_ITEM(item, 0);
                char head[MAX_QUAL];
                const char *attr = PyUnicode_AsUTF8(PyTuple_GET_ITEM(item, 2));
                PyObject *recv = PyTuple_GET_ITEM(item, 1);
                if (!attr)
                        return;
                if (is(recv, T_Name)) {
                        root = scan_name_id(recv);
                        snprintf(rest, sizeof rest, "%s", attr);
                } else if (!chain_text(recv, head, sizeof head, &root) ||
                           snprintf(rest, sizeof rest, "%s.%s", head, attr) >= (int)sizeof rest)
                        return;
        } else if (!chain_text(item, rest, sizeof rest, &root)) {
                return;
        }
        PyObject *mods = root ? modules_of(w, root) : NULL;
        int line, col;
        scan_node_pos(node, &line, &col);
        for (Py_ssize_t i = 0; mods && i < PyList_GET_SIZE(mods); i++) {
                const char *m = PyUnicode_AsUTF8(PyList_GET_ITEM(mods, i));
                if (m)
                        judge(w, line, col, m, rest);
        }
        PyErr_Clear();
}

void scan_members_resolve(walk *w)
{
        if (!w->members || !w->chains || !w->mod_binds)
                return;
        for (Py_ssize_t i = 0; i < PyList_GET_SIZE(w->chains) && !w->err; i++)
                judge_chain(w, PyList_GET_ITEM(w->chains, i));
}

/* `import a.b` or `from a import b`: is the imported name itself denied? */
bool scan_members_check_import(walk *w, PyObject *node, const char *qualified)
{
        const char *pat = NULL;
        size_t len = strchr(qualified, '.') ? acs_rules_member_denied(w->p, qualified, &pat) : 0;
        if (!len)
                return false;
        char q[MAX_QUAL];
        snprintf(q, sizeof q, "%.*s", (int)len, qualified);
        int line, col;
        scan_node_pos(node, &line, &col);
        scan_report(w, line, col, R_MEMBER, q, "'%s' is denied by profile %s (deny_members: %s); %s", q,
                    PNAME(w), pat, acs_rules_hint(R_MEMBER, q));
        return true;
}

/* `from M import *` binds names the scan cannot see: refused where M has denied members. */
void scan_members_check_star(walk *w, PyObject *node, const char *mod)
{
        if (!acs_rules_members_under(w->p, mod))
                return;
        int line, col;
        char name[MAX_QUAL];
        snprintf(name, sizeof name, "%s.*", mod);
        scan_node_pos(node, &line, &col);
        scan_report(w, line, col, R_MEMBER, name,
               "'from %s import *' would bind members that profile %s denies; import the names you need", mod,
               PNAME(w));
}
