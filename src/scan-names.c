/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Names that can only ever hold constant strings.
 *
 * `for fn in ("sin", "cos"): getattr(math, fn)` is everyday code, and a
 * getattr whose name is computed is otherwise refused (it can reach
 * anything). When EVERY binding of that identifier anywhere in the module
 * (any scope: merging scopes only adds candidates) gives a string the
 * scanner can fold -- `x = "a"`, `x: str = "a" + "b"`, `(x := "a")`, or a
 * for / comprehension target over a literal list, tuple or set of such
 * strings -- the set of values it can hold is known, and each is judged like
 * a constant name. Anything else that binds it (a parameter, an import,
 * augmented assignment, unpacking, with/except/match targets, def/class,
 * global/nonlocal, del) makes it unknown, and so does code that could bind
 * names behind the tree's back (globals(), locals(), vars(), exec, eval,
 * compile, setattr, __dict__, frame locals, importing sys/builtins/__main__,
 * `import *`). The caller also leaves reads in a class body alone: a
 * metaclass's __prepare__ may answer them from any mapping.
 */
#include <stdio.h>
#include <string.h>

#include "scan-walk-int.h"

static const char *const poison_names[] = { "globals", "locals", "vars", "exec", "eval", "compile",
                                            "setattr", "delattr", "__import__", "__builtins__",
                                            "breakpoint" };
static const char *const poison_attrs[] = { "__dict__", "f_locals", "f_globals", "f_builtins",
                                            "__setattr__", "__builtins__", "__globals__", "modules",
                                            "__prepare__" };
static const char *const poison_modules[] = { "__main__", "builtins", "sys", "inspect", "ctypes", "gc",
                                              "types", "importlib", "code", "codeop" };

#define MAX_VALUES 256

typedef struct cn {
        walk *w;
        PyObject *d; /* name -> list of str, or None: unknown */
        /* name -> the one expression bound to it whose value is known but
         * longer than folding builds (a padded template), or None */
        PyObject *longs;
        bool in_bind;
        bool poisoned;
        int depth;
} cn;

static bool in_list(const char *s, const char *const *v, size_t n)
{
        for (size_t i = 0; s && i < n; i++)
                if (strcmp(s, v[i]) == 0)
                        return true;
        return false;
}

static void unknown(cn *c, PyObject *id)
{
        if (id && PyUnicode_Check(id) && PyDict_SetItem(c->d, id, Py_None) < 0)
                c->poisoned = true;
        /* any other binding of the name: its long value is not the only one */
        if (!c->in_bind && id && PyUnicode_Check(id) && c->longs && PyDict_SetItem(c->longs, id, Py_None) < 0)
                c->poisoned = true;
}

/* A Name bound to value: remembered when it is its only binding and the
 * value is known but too long to scan_fold (read by scan_const_long). */
static void note_long(cn *c, PyObject *id, PyObject *value)
{
        if (!id || !PyUnicode_Check(id) || !c->longs)
                return;
        PyObject *cur = PyDict_GetItemWithError(c->longs, id);
        bool one = !cur && value && scan_fold_len(c->w, value) == -2;
        PyErr_Clear();
        if (PyDict_SetItem(c->longs, id, one ? value : Py_None) < 0)
                c->poisoned = true;
}

/* vals: a new list of str (stolen), or NULL for "not a known string" */
static void known(cn *c, PyObject *id, PyObject *vals)
{
        PyObject *cur = id ? PyDict_GetItemWithError(c->d, id) : NULL;
        if (!vals || cur == Py_None) {
                Py_XDECREF(vals);
                unknown(c, id);
                return;
        }
        if (!cur) {
                if (PyDict_SetItem(c->d, id, vals) < 0)
                        c->poisoned = true;
        } else if (PyList_GET_SIZE(cur) + PyList_GET_SIZE(vals) > MAX_VALUES ||
                   PyList_SetSlice(cur, PyList_GET_SIZE(cur), PyList_GET_SIZE(cur), vals) < 0) {
                unknown(c, id);
        }
        Py_DECREF(vals);
        PyErr_Clear();
}

static PyObject *value_of(cn *c, PyObject *node)
{
        PyObject *s = node ? scan_fold(c->w, node) : NULL, *l = NULL;
        if (s && PyUnicode_Check(s) && (l = PyList_New(1)))
                PyList_SET_ITEM(l, 0, s);
        else
                Py_XDECREF(s);
        PyErr_Clear();
        return l;
}

/* The strings a literal list/tuple/set of foldable strings iterates over. */
static PyObject *iter_values(cn *c, PyObject *node)
{
        if (!is(node, T_List) && !is(node, T_Tuple) && !is(node, T_Set))
                return NULL;
        PyObject *elts = scan_get(node, S_elts), *l = PyList_New(0);
        bool ok = l && elts && PyList_Check(elts) && PyList_GET_SIZE(elts) > 0 &&
                  PyList_GET_SIZE(elts) <= MAX_VALUES;
        for (Py_ssize_t i = 0; ok && i < PyList_GET_SIZE(elts); i++) {
                PyObject *e = PyList_GET_ITEM(elts, i), *s = is(e, T_Starred) ? NULL : scan_fold(c->w, e);
                ok = s && PyUnicode_Check(s) && PyList_Append(l, s) == 0;
                Py_XDECREF(s);
        }
        Py_XDECREF(elts);
        PyErr_Clear();
        if (!ok)
                Py_CLEAR(l);
        return l;
}

static void cn_walk(cn *c, PyObject *o);

static void cn_field(cn *c, PyObject *node, int s)
{
        PyObject *v = scan_get(node, s);
        if (v)
                cn_walk(c, v);
        Py_XDECREF(v);
        PyErr_Clear();
}

/* target = VALUES (of the expression value, NULL when not an assignment):
 * a bare Name learns them, anything else is walked (unknown). */
static void bind(cn *c, PyObject *target, PyObject *vals, PyObject *value)
{
        if (is(target, T_Name)) {
                PyObject *id = scan_get(target, S_id);
                c->in_bind = true;
                known(c, id, vals);
                c->in_bind = false;
                note_long(c, id, value);
                Py_XDECREF(id);
        } else {
                Py_XDECREF(vals);
                cn_walk(c, target);
        }
}

static void cn_import(cn *c, PyObject *o)
{
        const char *mod = is(o, T_ImportFrom) ? scan_get_str(o, S_module) : NULL;
        if (mod && in_list(mod, poison_modules, ELEMENTSOF(poison_modules)))
                c->poisoned = true;
        PyObject *names = scan_get(o, S_names);
        for (Py_ssize_t i = 0; names && PyList_Check(names) && i < PyList_GET_SIZE(names); i++) {
                PyObject *a = PyList_GET_ITEM(names, i), *as = scan_get(a, S_asname);
                const char *n = scan_get_str(a, S_name);
                if (!n || strcmp(n, "*") == 0) {
                        c->poisoned = true;
                } else {
                        if (!mod) {
                                char first[256];
                                snprintf(first, sizeof first, "%.*s", (int)strcspn(n, "."), n);
                                if (in_list(first, poison_modules, ELEMENTSOF(poison_modules)))
                                        c->poisoned = true;
                        }
                        if (as && as != Py_None) {
                                unknown(c, as);
                        } else {
                                PyObject *f = PyUnicode_FromStringAndSize(n, (Py_ssize_t)strcspn(n, "."));
                                unknown(c, f);
                                Py_XDECREF(f);
                        }
                }
                Py_XDECREF(as);
        }
        Py_XDECREF(names);
}

/* Every field of o, generically. */
static void cn_fields(cn *c, PyObject *o)
{
        PyObject *fields = scan_get((PyObject *)Py_TYPE(o), S__fields);
        for (Py_ssize_t i = 0; fields && PyTuple_Check(fields) && i < PyTuple_GET_SIZE(fields); i++) {
                PyObject *v = PyObject_GetAttr(o, PyTuple_GET_ITEM(fields, i));
                if (v)
                        cn_walk(c, v);
                Py_XDECREF(v);
                PyErr_Clear();
        }
        Py_XDECREF(fields);
}

/*
 * A metaclass's __prepare__ can make a class body's namespace any mapping,
 * whose lookups then answer name reads there with anything. Defining one
 * needs the name: as a def, an attribute, a keyword, or a dict key.
 */
static bool prepare(PyObject *o)
{
        const char *n = NULL;
        if (is(o, T_FunctionDef) || is(o, T_AsyncFunctionDef) || is(o, T_Name) || is(o, T_keyword))
                n = is(o, T_Name) ? scan_name_id(o) : scan_get_str(o, is(o, T_keyword) ? S_arg : S_name);
        if (n)
                return strcmp(n, "__prepare__") == 0;
        if (is(o, T_Constant)) {
                PyObject *v = scan_get(o, S_value);
                bool r = v && PyUnicode_Check(v) && PyUnicode_AsUTF8(v) && strstr(PyUnicode_AsUTF8(v), "prepare");
                Py_XDECREF(v);
                PyErr_Clear();
                return r;
        }
        return false;
}

static void cn_node(cn *c, PyObject *o)
{
        if (prepare(o)) {
                c->poisoned = true;
                return;
        }
        if (is(o, T_Name)) {
                PyObject *ctx = scan_get(o, S_ctx), *id = scan_get(o, S_id);
                if (is(ctx, T_Load))
                        c->poisoned |= in_list(scan_name_id(o), poison_names, ELEMENTSOF(poison_names));
                else
                        unknown(c, id); /* a Store or Del no rule below accounted for */
                Py_XDECREF(ctx);
                Py_XDECREF(id);
                return;
        }
        if (is(o, T_Attribute)) {
                c->poisoned |= in_list(scan_get_str(o, S_attr), poison_attrs, ELEMENTSOF(poison_attrs));
                cn_field(c, o, S_value);
                return;
        }
        if (is(o, T_Import) || is(o, T_ImportFrom)) {
                cn_import(c, o);
                return;
        }
        if (is(o, T_Global) || is(o, T_Nonlocal)) {
                PyObject *names = scan_get(o, S_names);
                for (Py_ssize_t i = 0; names && PyList_Check(names) && i < PyList_GET_SIZE(names); i++)
                        unknown(c, PyList_GET_ITEM(names, i));
                Py_XDECREF(names);
                return;
        }
        if (is(o, T_Assign) || is(o, T_NamedExpr)) {
                PyObject *value = scan_get(o, S_value), *ts = is(o, T_Assign) ? scan_get(o, S_targets) : NULL;
                if (ts && PyList_Check(ts)) {
                        for (Py_ssize_t i = 0; i < PyList_GET_SIZE(ts); i++)
                                bind(c, PyList_GET_ITEM(ts, i), value_of(c, value), value);
                } else if (!ts) {
                        PyObject *t = scan_get(o, S_target);
                        bind(c, t, value_of(c, value), value);
                        Py_XDECREF(t);
                }
                if (value)
                        cn_walk(c, value);
                Py_XDECREF(ts);
                Py_XDECREF(value);
                return;
        }
        if (is(o, T_AnnAssign)) {
                PyObject *t = scan_get(o, S_target), *value = scan_get(o, S_value);
                if (value && value != Py_None)
                        bind(c, t, value_of(c, value), value);
                else if (!is(t, T_Name)) /* `x: int` binds nothing */
                        cn_walk(c, t);
                if (value && value != Py_None)
                        cn_walk(c, value);
                cn_field(c, o, S_annotation);
                Py_XDECREF(t);
                Py_XDECREF(value);
                return;
        }
        if (is(o, T_For) || is(o, T_AsyncFor) || is(o, T_comprehension)) {
                PyObject *t = scan_get(o, S_target), *it = scan_get(o, S_iter);
                bind(c, t, it ? iter_values(c, it) : NULL, NULL);
                if (it)
                        cn_walk(c, it);
                if (is(o, T_comprehension)) {
                        cn_field(c, o, S_ifs);
                } else {
                        cn_field(c, o, S_body);
                        cn_field(c, o, S_orelse);
                }
                Py_XDECREF(t);
                Py_XDECREF(it);
                return;
        }
        if (is(o, T_arg)) {
                PyObject *a = scan_get(o, S_arg);
                unknown(c, a);
                Py_XDECREF(a);
        }
        if (is(o, T_FunctionDef) || is(o, T_AsyncFunctionDef) || is(o, T_ClassDef) || is(o, T_ExceptHandler) ||
            is(o, T_MatchAs) || is(o, T_MatchStar)) {
                PyObject *n = scan_get(o, S_name);
                if (n && n != Py_None)
                        unknown(c, n);
                Py_XDECREF(n);
        }
        if (is(o, T_MatchMapping)) {
                PyObject *n = scan_get(o, S_rest);
                if (n && n != Py_None)
                        unknown(c, n);
                Py_XDECREF(n);
        }
        cn_fields(c, o);
}

static void cn_walk(cn *c, PyObject *o)
{
        if (c->poisoned || !o)
                return;
        if (++c->depth > MAX_DEPTH) {
                c->poisoned = true;
        } else if (PyList_Check(o)) {
                for (Py_ssize_t i = 0; i < PyList_GET_SIZE(o) && !c->poisoned; i++)
                        cn_walk(c, PyList_GET_ITEM(o, i));
        } else if (is_ast(o)) {
                cn_node(c, o);
        }
        c->depth--;
}

/* The module's names, learnt once per scan (const_names, const_longs). */
static void learn_names(walk *w)
{
        if (w->const_names)
                return;
        cn c = { .w = w, .d = PyDict_New(), .longs = PyDict_New() };
        if (!c.d || !c.longs) {
                Py_XDECREF(c.d);
                Py_XDECREF(c.longs);
                PyErr_Clear();
                Py_INCREF(Py_None);
                w->const_names = Py_None;
                return;
        }
        cn_walk(&c, w->tree);
        PyErr_Clear();
        if (c.poisoned) {
                Py_DECREF(c.d);
                Py_DECREF(c.longs);
                Py_INCREF(Py_None);
                c.d = Py_None;
                c.longs = NULL;
        }
        w->const_names = c.d;
        w->const_longs = c.longs;
}

PyObject *scan_const_long(walk *w, const char *name)
{
        if (!name || strncmp(name, "__", 2) == 0)
                return NULL;
        learn_names(w);
        PyObject *v = w->const_longs ? PyDict_GetItemString(w->const_longs, name) : NULL;
        if (!v || v == Py_None)
                return NULL;
        Py_INCREF(v);
        return v;
}

PyObject *scan_const_values(walk *w, const char *name)
{
        if (!name || strncmp(name, "__", 2) == 0) /* __name__, __doc__: set by the interpreter */
                return NULL;
        learn_names(w);
        if (w->const_names == Py_None)
                return NULL;
        PyObject *v = PyDict_GetItemString(w->const_names, name);
        if (!v || !PyList_Check(v) || PyList_GET_SIZE(v) == 0)
                return NULL;
        Py_INCREF(v);
        return v;
}
