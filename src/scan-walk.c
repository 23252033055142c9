/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The rule walker. Parses with PyCF_ONLY_AST (the built-in _ast types: no
 * `import ast`, which alone costs ~14 ms) and walks the node objects in C via
 * each type's _fields. Everything a rule needs is decided on the node or
 * deferred to a short candidate list resolved after the walk (module aliases
 * are only all known then).
 *
 * Runs inside acs-scan.so with the GIL held. The cache of type objects is
 * per interpreter, and there is one interpreter per process.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "scan-rules.h"
#include "scan-walk-int.h"

#define NAME_T(n) #n,
static const char *const type_names[] = {TYPES(NAME_T)};
static const char *const str_names[] = {STRS(NAME_T)};

/* Per-interpreter cache: type objects and interned attribute names. */
struct acs_scan_cache acs_scan_C;

static void sens_add(void *ud, const char *name)
{
        PyObject *s = PyUnicode_InternFromString(name);
        if (!s || PySet_Add(ud, s) < 0)
                PyErr_Clear();
        Py_XDECREF(s);
}

static unsigned long strv_sum(char *const *v, unsigned long h)
{
        for (; v && *v; v++)
                for (const char *c = *v; *c; c++)
                        h = h * 31 + (unsigned char)*c;
        return h * 31 + 7;
}

/*
 * The names any rule may care about: fixed lists plus the profile's. A name
 * outside this set, not a dunder and not private, needs no rule at all: the
 * walker skips it with one hash lookup. Rebuilt when the profile's lists
 * change (their checksum), kept across scans otherwise.
 */
PyObject *acs_scan_sensitive(const acs_profile *p)
{
        unsigned long sum = strv_sum(p->deny_builtins, strv_sum(p->deny_attributes, 1));
        if (C.sens && C.sens_sum == sum)
                return C.sens;
        Py_CLEAR(C.sens);
        if (!(C.sens = PySet_New(NULL))) {
                PyErr_Clear();
                return NULL;
        }
        acs_rules_each_name(sens_add, C.sens);
        for (char *const *v = p->deny_builtins; v && *v; v++)
                sens_add(C.sens, *v);
        for (char *const *v = p->deny_attributes; v && *v; v++)
                sens_add(C.sens, *v);
        C.sens_sum = sum;
        return C.sens;
}

void acs_scan_walk_reset(void)
{
        Py_CLEAR(C.sens);
        for (size_t i = 0; i < T__COUNT; i++)
                Py_CLEAR(C.t[i]);
        for (size_t i = 0; i < S__COUNT; i++)
                Py_CLEAR(C.s[i]);
        Py_CLEAR(C.normalize);
        C.ready = false;
}

int acs_scan_cache_init(acs_error *err)
{
        if (C.ready)
                return 0;
        PyObject *m = PyImport_ImportModule("_ast");
        if (!m)
                return acs_scan_error(err, -EIO, "cannot load the _ast module");
        for (size_t i = 0; i < T__COUNT; i++)
                if (!(C.t[i] = PyObject_GetAttrString(m, type_names[i]))) {
                        Py_DECREF(m);
                        acs_scan_walk_reset();
                        return acs_scan_error(err, -EIO, "_ast has no %s", type_names[i]);
                }
        Py_DECREF(m);
        for (size_t i = 0; i < S__COUNT; i++)
                if (!(C.s[i] = PyUnicode_InternFromString(str_names[i]))) {
                        acs_scan_walk_reset();
                        return acs_scan_error(err, -ENOMEM, "out of memory");
                }
        C.ready = true;
        return 0;
}

/*
 * New reference or NULL (no exception left set). Node fields live in the
 * instance dict: looking there first skips the type's attribute machinery.
 */
PyObject *get(PyObject *o, int s)
{
        PyObject **dp = _PyObject_GetDictPtr(o), *v;
        if (dp && *dp) {
                v = PyDict_GetItemWithError(*dp, C.s[s]);
                if (v) {
                        Py_INCREF(v);
                        return v;
                }
                PyErr_Clear();
        }
        v = PyObject_GetAttr(o, C.s[s]);
        if (!v)
                PyErr_Clear();
        return v;
}

/* A str attribute as UTF-8, valid while o lives (the node keeps the str). */
const char *get_str(PyObject *o, int s)
{
        PyObject *v = get(o, s);
        if (!v)
                return NULL;
        const char *c = PyUnicode_Check(v) ? PyUnicode_AsUTF8(v) : NULL;
        if (!c)
                PyErr_Clear();
        Py_DECREF(v);
        return c;
}

int get_int(PyObject *o, int s)
{
        PyObject *v = get(o, s);
        long l = v && PyLong_Check(v) ? PyLong_AsLong(v) : 0;
        Py_XDECREF(v);
        if (PyErr_Occurred())
                PyErr_Clear();
        return (int)l;
}

const char *name_id(PyObject *node)
{
        return is(node, T_Name) ? get_str(node, S_id) : NULL;
}

void report(walk *w, int line, int col, const char *rule, const char *name,
                                  const char *fmt, ...)
{
        char msg[1024];
        va_list ap;
        if (w->err || w->r->n_findings >= MAX_FINDINGS)
                return;
        for (size_t i = 0; i < w->r->n_findings; i++) {
                acs_finding *f = &w->r->findings[i];
                if (f->line == line && f->col == col && strcmp(f->rule, rule) == 0 &&
                    strcmp(f->name, name) == 0)
                        return;
        }
        va_start(ap, fmt);
        vsnprintf(msg, sizeof msg, fmt, ap);
        va_end(ap);
        int r = acs_scan_add_finding(w->r, rule, name, line, col, msg);
        if (r < 0)
                w->err = r;
}

void node_pos(PyObject *node, int *line, int *col)
{
        *line = get_int(node, S_lineno);
        *col = get_int(node, S_col_offset);
}

void report_at(walk *w, PyObject *node, const char *rule, const char *name)
{
        int line, col;
        const char *pn = w->p->name ? w->p->name : "?";
        node_pos(node, &line, &col);
        if (strcmp(rule, R_IMPORT) == 0 && acs_rules_import_partial(w->p, name)) {
                /* import os where os.path is allowed: say so */
                char *under = acs_rules_allowed_under(w->p, name);
                report(w, line, col, rule, name,
                       "import of '%s' is not allowed by profile %s, only %s of it (allowed: %s)", name, pn,
                       under ? under : "parts", w->allowed);
                free(under);
        } else if (strcmp(rule, R_IMPORT) == 0)
                report(w, line, col, rule, name,
                       "import of '%s' is not allowed by profile %s (allowed: %s)", name, pn,
                       w->allowed);
        else if (strcmp(rule, R_BUILTIN) == 0)
                report(w, line, col, rule, name, "builtin '%s' is denied by profile %s; %s", name,
                       pn, acs_rules_hint(rule, name));
        else if (strcmp(rule, R_ATTR) == 0)
                report(w, line, col, rule, name, "attribute '%s' is denied by profile %s; %s",
                       name, pn, acs_rules_hint(rule, name));
        else if (strcmp(rule, R_FRAME) == 0)
                report(w, line, col, rule, name, "'%s' walks interpreter frames; %s", name,
                       acs_rules_hint(rule, name));
        else
                report(w, line, col, rule, name, "'%s' is reflective access to interpreter internals; %s",
                       name, acs_rules_hint(rule, name));
}

int add_cand(walk *w, int kind, const char *recv, const char *attr, PyObject *node)
{
        if (w->n_cands == w->cap_cands) {
                size_t n = w->cap_cands ? w->cap_cands * 2 : 16;
                cand *c = realloc(w->cands, n * sizeof *c);
                if (!c)
                        return w->err = -ENOMEM;
                w->cands = c;
                w->cap_cands = n;
        }
        cand *c = &w->cands[w->n_cands];
        c->kind = kind;
        c->recv = strdup(recv);
        c->attr = strdup(attr ? attr : "");
        if (!c->recv || !c->attr) {
                free(c->recv);
                free(c->attr);
                return w->err = -ENOMEM;
        }
        node_pos(node, &c->line, &c->col);
        w->n_cands++;
        return 0;
}

/* ---- names bound in a scope (only computed when a denied name is read) ---- */

void collect(walk *w, PyObject *o, PyObject *set);

static void collect_add(PyObject *set, PyObject *name)
{
        if (name && PyUnicode_Check(name) && PySet_Add(set, name) < 0)
                PyErr_Clear();
}

static void collect_field(walk *w, PyObject *node, int s, PyObject *set)
{
        PyObject *v = get(node, s);
        if (v)
                collect(w, v, set);
        Py_XDECREF(v);
}

static void collect_import_names(PyObject *node, PyObject *set)
{
        PyObject *names = get(node, S_names);
        for (Py_ssize_t i = 0; names && PyList_Check(names) && i < PyList_GET_SIZE(names); i++) {
                PyObject *a = PyList_GET_ITEM(names, i);
                PyObject *as = get(a, S_asname);
                if (as && as != Py_None) {
                        collect_add(set, as);
                } else {
                        const char *n = get_str(a, S_name);
                        if (n && strcmp(n, "*") != 0) {
                                PyObject *first = PyUnicode_FromStringAndSize(n, strcspn(n, "."));
                                collect_add(set, first);
                                Py_XDECREF(first);
                        }
                }
                Py_XDECREF(as);
        }
        Py_XDECREF(names);
}

static void collect_args(walk *w, PyObject *arguments, PyObject *set)
{
        static const int lists[] = {S_posonlyargs, S_args, S_kwonlyargs};
        for (size_t k = 0; k < 3; k++) {
                PyObject *l = get(arguments, lists[k]);
                for (Py_ssize_t i = 0; l && PyList_Check(l) && i < PyList_GET_SIZE(l); i++) {
                        PyObject *n = get(PyList_GET_ITEM(l, i), S_arg);
                        collect_add(set, n);
                        Py_XDECREF(n);
                }
                Py_XDECREF(l);
        }
        static const int single[] = {S_vararg, S_kwarg};
        for (size_t k = 0; k < 2; k++) {
                PyObject *a = get(arguments, single[k]);
                if (a && a != Py_None) {
                        PyObject *n = get(a, S_arg);
                        collect_add(set, n);
                        Py_XDECREF(n);
                }
                Py_XDECREF(a);
        }
}

/* Generic walk collecting bindings, not entering nested scopes' bodies. */
void collect(walk *w, PyObject *o, PyObject *set)
{
        if (PyList_Check(o)) {
                for (Py_ssize_t i = 0; i < PyList_GET_SIZE(o); i++)
                        collect(w, PyList_GET_ITEM(o, i), set);
                return;
        }
        if (!is_ast(o))
                return;
        if (is(o, T_Name)) {
                PyObject *ctx = get(o, S_ctx);
                if (is(ctx, T_Store)) {
                        PyObject *id = get(o, S_id);
                        collect_add(set, id);
                        Py_XDECREF(id);
                }
                Py_XDECREF(ctx);
                return;
        }
        if (is(o, T_Import) || is(o, T_ImportFrom)) {
                collect_import_names(o, set);
                return;
        }
        if (is(o, T_ListComp) || is(o, T_SetComp) || is(o, T_DictComp) || is(o, T_GeneratorExp))
                return;
        bool def = is(o, T_FunctionDef) || is(o, T_AsyncFunctionDef) || is(o, T_ClassDef);
        if (def || is(o, T_ExceptHandler) || is(o, T_MatchAs) || is(o, T_MatchStar)) {
                PyObject *n = get(o, S_name);
                collect_add(set, n);
                Py_XDECREF(n);
        }
        if (is(o, T_MatchMapping)) {
                PyObject *n = get(o, S_rest);
                collect_add(set, n);
                Py_XDECREF(n);
        }
        PyObject *fields = get((PyObject *)Py_TYPE(o), S__fields);
        for (Py_ssize_t i = 0; fields && PyTuple_Check(fields) && i < PyTuple_GET_SIZE(fields); i++) {
                PyObject *f = PyTuple_GET_ITEM(fields, i);
                /* a nested def's or lambda's body is its own scope */
                if ((def || is(o, T_Lambda)) && PyUnicode_Compare(f, C.s[S_body]) == 0)
                        continue;
                if (is(o, T_Lambda) && PyUnicode_Compare(f, C.s[S_args]) == 0)
                        continue;
                PyObject *v = PyObject_GetAttr(o, f);
                if (!v) {
                        PyErr_Clear();
                        continue;
                }
                collect(w, v, set);
                Py_DECREF(v);
        }
        Py_XDECREF(fields);
}

static PyObject *scope_bound(walk *w, scope *s)
{
        if (s->bound)
                return s->bound;
        if (!(s->bound = PySet_New(NULL))) {
                PyErr_Clear();
                w->err = -ENOMEM;
                return NULL;
        }
        if (s->kind == SC_COMP) {
                PyObject *gens = get(s->node, S_generators);
                for (Py_ssize_t i = 0; gens && PyList_Check(gens) && i < PyList_GET_SIZE(gens); i++)
                        collect_field(w, PyList_GET_ITEM(gens, i), S_target, s->bound);
                Py_XDECREF(gens);
                return s->bound;
        }
        if (s->kind == SC_FUNCTION) {
                PyObject *a = get(s->node, S_args);
                if (a)
                        collect_args(w, a, s->bound);
                Py_XDECREF(a);
        }
        collect_field(w, s->node, S_body, s->bound);
        return s->bound;
}

/* Names deleted, or declared global/nonlocal, anywhere: never trusted as shadows. */
static void collect_unsafe(walk *w, PyObject *o, PyObject *set)
{
        if (PyList_Check(o)) {
                for (Py_ssize_t i = 0; i < PyList_GET_SIZE(o); i++)
                        collect_unsafe(w, PyList_GET_ITEM(o, i), set);
                return;
        }
        if (!is_ast(o))
                return;
        if (is(o, T_Global) || is(o, T_Nonlocal)) {
                PyObject *names = get(o, S_names);
                for (Py_ssize_t i = 0; names && PyList_Check(names) && i < PyList_GET_SIZE(names); i++)
                        collect_add(set, PyList_GET_ITEM(names, i));
                Py_XDECREF(names);
                return;
        }
        if (is(o, T_Name)) {
                PyObject *ctx = get(o, S_ctx);
                if (is(ctx, T_Del)) {
                        PyObject *id = get(o, S_id);
                        collect_add(set, id);
                        Py_XDECREF(id);
                }
                Py_XDECREF(ctx);
                return;
        }
        PyObject *fields = get((PyObject *)Py_TYPE(o), S__fields);
        for (Py_ssize_t i = 0; fields && PyTuple_Check(fields) && i < PyTuple_GET_SIZE(fields); i++) {
                PyObject *v = PyObject_GetAttr(o, PyTuple_GET_ITEM(fields, i));
                if (!v) {
                        PyErr_Clear();
                        continue;
                }
                collect_unsafe(w, v, set);
                Py_DECREF(v);
        }
        Py_XDECREF(fields);
}

/* Top-level statements that bind a name unconditionally, by index. */
static int module_bindings(walk *w)
{
        if (w->module_bind)
                return 0;
        if (!(w->module_bind = PyDict_New()))
                return w->err = -ENOMEM;
        PyObject *body = get(w->tree, S_body);
        for (Py_ssize_t i = 0; body && PyList_Check(body) && i < PyList_GET_SIZE(body); i++) {
                PyObject *st = PyList_GET_ITEM(body, i), *set = PySet_New(NULL);
                if (!set)
                        break;
                if (is(st, T_FunctionDef) || is(st, T_AsyncFunctionDef) || is(st, T_ClassDef)) {
                        PyObject *n = get(st, S_name);
                        collect_add(set, n);
                        Py_XDECREF(n);
                } else if (is(st, T_Import) || is(st, T_ImportFrom)) {
                        collect_import_names(st, set);
                } else if (is(st, T_Assign)) {
                        collect_field(w, st, S_targets, set);
                } else if (is(st, T_AnnAssign)) {
                        PyObject *v = get(st, S_value);
                        if (v && v != Py_None)
                                collect_field(w, st, S_target, set);
                        Py_XDECREF(v);
                }
                PyObject *it = PyObject_GetIter(set), *n;
                PyObject *idx = PyLong_FromSsize_t(i);
                while (it && idx && (n = PyIter_Next(it))) {
                        if (!PyDict_GetItem(w->module_bind, n))
                                PyDict_SetItem(w->module_bind, n, idx);
                        Py_DECREF(n);
                }
                Py_XDECREF(it);
                Py_XDECREF(idx);
                Py_DECREF(set);
        }
        Py_XDECREF(body);
        PyErr_Clear();
        return 0;
}

/*
 * Is a read of name here certainly not the builtin? Function scopes follow
 * Python's rule (bound anywhere in the function = local everywhere in it);
 * at module level only an unconditional top-level binding that precedes the
 * top-level statement holding the read counts. class_ok: a class body's own
 * bindings count too (used for dunder names only).
 */
bool shadowed(walk *w, const char *name, bool class_ok)
{
        PyObject *n = PyUnicode_FromString(name);
        bool res = false;
        if (!n)
                goto out;
        if (!w->no_shadow) {
                if (!(w->no_shadow = PySet_New(NULL)))
                        goto out;
                collect_unsafe(w, w->tree, w->no_shadow);
        }
        if (PySet_Contains(w->no_shadow, n) == 1)
                goto out;
        /* for x in ...: / with ... as x: the body reads the target */
        for (Py_ssize_t i = 0; w->blocks && i < PyList_GET_SIZE(w->blocks); i++)
                if (PySet_Contains(PyList_GET_ITEM(w->blocks, i), n) == 1) {
                        res = true;
                        goto out;
                }
        for (size_t i = w->n_scopes; i-- > 0;) {
                scope *s = &w->scopes[i];
                if (s->kind == SC_MODULE) {
                        if (module_bindings(w) < 0)
                                goto out;
                        PyObject *idx = PyDict_GetItem(w->module_bind, n);
                        res = idx && PyLong_AsSsize_t(idx) < w->top_index;
                        goto out;
                }
                if (s->kind == SC_CLASS && !(class_ok && i == w->n_scopes - 1))
                        continue;
                PyObject *b = scope_bound(w, s);
                if (b && PySet_Contains(b, n) == 1) {
                        res = true;
                        goto out;
                }
        }
out:
        Py_XDECREF(n);
        PyErr_Clear();
        return res;
}

/* ---- string folding: constants, concatenations, joins, chr() ---- */

static PyObject *nfkc(PyObject *s)
{
        if (!s || PyUnicode_IS_ASCII(s))
                return s;
        if (!C.normalize) {
                PyObject *m = PyImport_ImportModule("unicodedata"); /* built in: no file access */
                C.normalize = m ? PyObject_GetAttrString(m, "normalize") : NULL;
                Py_XDECREF(m);
        }
        PyObject *r = C.normalize ? PyObject_CallFunction(C.normalize, "sO", "NFKC", s) : NULL;
        if (!r) {
                PyErr_Clear();
                return s;
        }
        Py_DECREF(s);
        return r;
}

static PyObject *fold_rec(PyObject *node, int budget);

static PyObject *fold_concat(PyObject *a, PyObject *b)
{
        PyObject *r = a && b ? PyUnicode_Concat(a, b) : NULL;
        Py_XDECREF(a);
        Py_XDECREF(b);
        return r;
}

static PyObject *fold_call(PyObject *node, int budget)
{
        PyObject *func = get(node, S_func), *args = get(node, S_args), *r = NULL;
        if (!func || !args || !PyList_Check(args) || PyList_GET_SIZE(args) != 1)
                goto out;
        PyObject *a0 = PyList_GET_ITEM(args, 0);
        const char *fn = name_id(func);
        if (fn && strcmp(fn, "str") == 0) {
                r = fold_rec(a0, budget - 1);
        } else if (fn && strcmp(fn, "chr") == 0 && is(a0, T_Constant)) {
                PyObject *v = get(a0, S_value);
                if (v && PyLong_Check(v))
                        r = PyUnicode_FromFormat("%c", (int)(PyLong_AsLong(v) & 0x1fffff));
                Py_XDECREF(v);
        } else if (is(func, T_Attribute) && (is(a0, T_List) || is(a0, T_Tuple))) {
                const char *attr = get_str(func, S_attr);
                PyObject *sepn = get(func, S_value), *sep = NULL, *elts = get(a0, S_elts);
                if (attr && strcmp(attr, "join") == 0 && sepn && (sep = fold_rec(sepn, budget - 1)) &&
                    elts && PyList_Check(elts)) {
                        PyObject *parts = PyList_New(0);
                        bool ok = parts != NULL;
                        for (Py_ssize_t i = 0; ok && i < PyList_GET_SIZE(elts); i++) {
                                PyObject *e = fold_rec(PyList_GET_ITEM(elts, i), budget - 1);
                                ok = e && PyList_Append(parts, e) == 0;
                                Py_XDECREF(e);
                        }
                        if (ok)
                                r = PyUnicode_Join(sep, parts);
                        Py_XDECREF(parts);
                }
                Py_XDECREF(sepn);
                Py_XDECREF(sep);
                Py_XDECREF(elts);
        }
out:
        Py_XDECREF(func);
        Py_XDECREF(args);
        PyErr_Clear();
        return r;
}

static PyObject *fold_rec(PyObject *node, int budget)
{
        if (budget <= 0 || !node)
                return NULL;
        if (is(node, T_Constant)) {
                PyObject *v = get(node, S_value);
                if (v && PyUnicode_Check(v))
                        return v;
                Py_XDECREF(v);
                return NULL;
        }
        if (is(node, T_BinOp)) {
                PyObject *op = get(node, S_op), *l = get(node, S_left), *rt = get(node, S_right), *r = NULL;
                if (is(op, T_Add)) {
                        r = fold_concat(fold_rec(l, budget - 1), fold_rec(rt, budget - 1));
                } else if (is(op, T_Mult) && is(rt, T_Constant)) {
                        PyObject *s = fold_rec(l, budget - 1), *k = get(rt, S_value);
                        if (s && k && PyLong_Check(k) && PyLong_AsLong(k) >= 0 && PyLong_AsLong(k) <= 64)
                                r = PySequence_Repeat(s, PyLong_AsLong(k));
                        Py_XDECREF(s);
                        Py_XDECREF(k);
                }
                Py_XDECREF(op);
                Py_XDECREF(l);
                Py_XDECREF(rt);
                PyErr_Clear();
                return r;
        }
        if (is(node, T_JoinedStr) || is(node, T_FormattedValue)) {
                if (is(node, T_FormattedValue)) {
                        PyObject *spec = get(node, S_format_spec), *v = get(node, S_value), *r = NULL;
                        if (spec == Py_None && get_int(node, S_conversion) == -1)
                                r = fold_rec(v, budget - 1);
                        Py_XDECREF(spec);
                        Py_XDECREF(v);
                        return r;
                }
                PyObject *vals = get(node, S_values), *r = PyUnicode_FromString("");
                for (Py_ssize_t i = 0; r && vals && PyList_Check(vals) && i < PyList_GET_SIZE(vals); i++)
                        r = fold_concat(r, fold_rec(PyList_GET_ITEM(vals, i), budget - 1));
                Py_XDECREF(vals);
                PyErr_Clear();
                return r;
        }
        if (is(node, T_Call))
                return fold_call(node, budget);
        return NULL;
}

PyObject *fold(PyObject *node)
{
        return nfkc(fold_rec(node, 64));
}

/* The known leading (prefix) or trailing (!prefix) text of a string expression. */
PyObject *fold_edge(PyObject *node, bool prefix, int budget)
{
        PyObject *whole = fold_rec(node, budget);
        if (whole || budget <= 0)
                return whole;
        PyObject *r = NULL;
        if (is(node, T_BinOp)) {
                PyObject *op = get(node, S_op), *side = get(node, prefix ? S_left : S_right);
                if (is(op, T_Add))
                        r = fold_edge(side, prefix, budget - 1);
                Py_XDECREF(op);
                Py_XDECREF(side);
        } else if (is(node, T_JoinedStr)) {
                PyObject *vals = get(node, S_values);
                Py_ssize_t n = vals && PyList_Check(vals) ? PyList_GET_SIZE(vals) : 0;
                if (n > 0)
                        r = fold_edge(PyList_GET_ITEM(vals, prefix ? 0 : n - 1), prefix, budget - 1);
                Py_XDECREF(vals);
        }
        PyErr_Clear();
        return r;
}
