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
#include "scan-text.h"
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
PyObject *scan_get(PyObject *o, int s)
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
const char *scan_get_str(PyObject *o, int s)
{
        PyObject *v = scan_get(o, s);
        if (!v)
                return NULL;
        const char *c = PyUnicode_Check(v) ? PyUnicode_AsUTF8(v) : NULL;
        if (!c)
                PyErr_Clear();
        Py_DECREF(v);
        return c;
}

int scan_get_int(PyObject *o, int s)
{
        PyObject *v = scan_get(o, s);
        long l = v && PyLong_Check(v) ? PyLong_AsLong(v) : 0;
        Py_XDECREF(v);
        if (PyErr_Occurred())
                PyErr_Clear();
        return (int)l;
}

const char *scan_name_id(PyObject *node)
{
        return is(node, T_Name) ? scan_get_str(node, S_id) : NULL;
}

/* msg with every quote of name (longer than a finding's name may be) replaced by shortname. */
static char *shorten_quotes(char *msg, const char *name, const char *shortname)
{
        size_t nl = strlen(name), sl = strlen(shortname), n = 0;
        char *out = NULL, *o;
        const char *p, *q;

        if (nl <= ACS_FINDING_NAME_MAX)
                return msg;
        for (p = msg; (q = strstr(p, name)); p = q + nl)
                n++;
        if (n == 0 || !(out = malloc(strlen(msg) - n * nl + n * sl + 1)))
                return msg;
        for (o = out, p = msg; (q = strstr(p, name)); p = q + nl) {
                memcpy(o, p, (size_t)(q - p));
                o += q - p;
                memcpy(o, shortname, sl);
                o += sl;
        }
        strcpy(o, p);
        free(msg);
        return out;
}

/*
 * One finding. The message is formatted whole, with no fixed buffer to cut a
 * character in two; a quote of a very long name in it is shortened like the
 * name itself, and acs_scan_add_finding clips and escapes both.
 */
void scan_report(walk *w, int line, int col, const char *rule, const char *name,
                                  const char *fmt, ...)
{
        char *msg = NULL, *shortname;
        va_list ap;
        int r;

        if (w->err || w->r->n_findings >= MAX_FINDINGS)
                return;
        if (!(shortname = acs_scan_clean_text(name, ACS_FINDING_NAME_MAX))) {
                w->err = -ENOMEM;
                return;
        }
        for (size_t i = 0; i < w->r->n_findings; i++) {
                acs_finding *f = &w->r->findings[i];
                if (f->line == line && f->col == col && strcmp(f->rule, rule) == 0 &&
                    strcmp(f->name, shortname) == 0) {
                        free(shortname);
                        return;
                }
        }
        va_start(ap, fmt);
        r = vasprintf(&msg, fmt, ap);
        va_end(ap);
        if (r < 0) {
                free(shortname);
                w->err = -ENOMEM;
                return;
        }
        msg = shorten_quotes(msg, name, shortname);
        r = acs_scan_add_finding(w->r, rule, shortname, line, col, msg);
        free(msg);
        free(shortname);
        if (r < 0)
                w->err = r;
}

void scan_node_pos(PyObject *node, int *line, int *col)
{
        *line = scan_get_int(node, S_lineno);
        *col = scan_get_int(node, S_col_offset);
}

static bool in_deny(walk *w, const char *name)
{
        for (char *const *v = w->p->deny_builtins; v && *v; v++)
                if (strcmp(*v, name) == 0)
                        return true;
        return false;
}

void scan_report_at(walk *w, PyObject *node, const char *rule, const char *name)
{
        int line, col;
        const char *pn = w->p->name ? w->p->name : "?";
        scan_node_pos(node, &line, &col);
        if (strcmp(rule, R_IMPORT) == 0 && acs_rules_import_partial(w->p, name)) {
                /* import os where os.path is allowed: say so */
                char *under = acs_rules_allowed_under(w->p, name);
                scan_report(w, line, col, rule, name,
                       "import of '%s' is not allowed by profile %s, only %s of it (allowed: %s)", name, pn,
                       under ? under : "parts", w->allowed);
                free(under);
        } else if (strcmp(rule, R_IMPORT) == 0)
                scan_report(w, line, col, rule, name,
                       "import of '%s' is not allowed by profile %s (allowed: %s)", name, pn,
                       w->allowed);
        else if (strcmp(rule, R_BUILTIN) == 0 && acs_rules_site_builtin(name) && !in_deny(w, name))
                scan_report(w, line, col, rule, name,
                       "builtin '%s' comes from site and reads files; it is refused whatever the profile; %s",
                       name, acs_rules_hint(rule, name));
        else if (strcmp(rule, R_BUILTIN) == 0)
                scan_report(w, line, col, rule, name, "builtin '%s' is denied by profile %s; %s", name,
                       pn, acs_rules_hint(rule, name));
        else if (strcmp(rule, R_ATTR) == 0)
                scan_report(w, line, col, rule, name, "attribute '%s' is denied by profile %s; %s",
                       name, pn, acs_rules_hint(rule, name));
        else if (strcmp(rule, R_FRAME) == 0)
                scan_report(w, line, col, rule, name, "'%s' walks interpreter frames; %s", name,
                       acs_rules_hint(rule, name));
        else
                scan_report(w, line, col, rule, name,
                            "'%s' is reflective access to interpreter internals; %s", name,
                            acs_rules_hint(rule, name));
}

int scan_add_cand(walk *w, int kind, const char *recv, const char *attr, PyObject *node)
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
        scan_node_pos(node, &c->line, &c->col);
        w->n_cands++;
        return 0;
}

/* ---- names bound in a scope (only computed when a denied name is read) ---- */

void scan_collect(walk *w, PyObject *o, PyObject *set);

static void collect_add(PyObject *set, PyObject *name)
{
        if (name && PyUnicode_Check(name) && PySet_Add(set, name) < 0)
                PyErr_Clear();
}

static void collect_field(walk *w, PyObject *node, int s, PyObject *set)
{
        PyObject *v = scan_get(node, s);
        if (v)
                scan_collect(w, v, set);
        Py_XDECREF(v);
}

static void collect_import_names(PyObject *node, PyObject *set)
{
        PyObject *names = scan_get(node, S_names);
        for (Py_ssize_t i = 0; names && PyList_Check(names) && i < PyList_GET_SIZE(names); i++) {
                PyObject *a = PyList_GET_ITEM(names, i);
                PyObject *as = scan_get(a, S_asname);
                if (as && as != Py_None) {
                        collect_add(set, as);
                } else {
                        const char *n = scan_get_str(a, S_name);
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
                PyObject *l = scan_get(arguments, lists[k]);
                for (Py_ssize_t i = 0; l && PyList_Check(l) && i < PyList_GET_SIZE(l); i++) {
                        PyObject *n = scan_get(PyList_GET_ITEM(l, i), S_arg);
                        collect_add(set, n);
                        Py_XDECREF(n);
                }
                Py_XDECREF(l);
        }
        static const int single[] = {S_vararg, S_kwarg};
        for (size_t k = 0; k < 2; k++) {
                PyObject *a = scan_get(arguments, single[k]);
                if (a && a != Py_None) {
                        PyObject *n = scan_get(a, S_arg);
                        collect_add(set, n);
                        Py_XDECREF(n);
                }
                Py_XDECREF(a);
        }
}

/* Generic walk collecting bindings, not entering nested scopes' bodies. */
void scan_collect(walk *w, PyObject *o, PyObject *set)
{
        if (PyList_Check(o)) {
                for (Py_ssize_t i = 0; i < PyList_GET_SIZE(o); i++)
                        scan_collect(w, PyList_GET_ITEM(o, i), set);
                return;
        }
        if (!is_ast(o))
                return;
        if (is(o, T_Name)) {
                PyObject *ctx = scan_get(o, S_ctx);
                if (is(ctx, T_Store)) {
                        PyObject *id = scan_get(o, S_id);
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
                PyObject *n = scan_get(o, S_name);
                collect_add(set, n);
                Py_XDECREF(n);
        }
        if (is(o, T_MatchMapping)) {
                PyObject *n = scan_get(o, S_rest);
                collect_add(set, n);
                Py_XDECREF(n);
        }
        PyObject *fields = scan_get((PyObject *)Py_TYPE(o), S__fields);
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
                scan_collect(w, v, set);
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
                PyObject *gens = scan_get(s->node, S_generators);
                for (Py_ssize_t i = 0; gens && PyList_Check(gens) && i < PyList_GET_SIZE(gens); i++)
                        collect_field(w, PyList_GET_ITEM(gens, i), S_target, s->bound);
                Py_XDECREF(gens);
                return s->bound;
        }
        if (s->kind == SC_FUNCTION) {
                PyObject *a = scan_get(s->node, S_args);
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
                PyObject *names = scan_get(o, S_names);
                for (Py_ssize_t i = 0; names && PyList_Check(names) && i < PyList_GET_SIZE(names); i++)
                        collect_add(set, PyList_GET_ITEM(names, i));
                Py_XDECREF(names);
                return;
        }
        if (is(o, T_Name)) {
                PyObject *ctx = scan_get(o, S_ctx);
                if (is(ctx, T_Del)) {
                        PyObject *id = scan_get(o, S_id);
                        collect_add(set, id);
                        Py_XDECREF(id);
                }
                Py_XDECREF(ctx);
                return;
        }
        PyObject *fields = scan_get((PyObject *)Py_TYPE(o), S__fields);
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
        PyObject *body = scan_get(w->tree, S_body);
        for (Py_ssize_t i = 0; body && PyList_Check(body) && i < PyList_GET_SIZE(body); i++) {
                PyObject *st = PyList_GET_ITEM(body, i), *set = PySet_New(NULL);
                if (!set)
                        break;
                if (is(st, T_FunctionDef) || is(st, T_AsyncFunctionDef) || is(st, T_ClassDef)) {
                        PyObject *n = scan_get(st, S_name);
                        collect_add(set, n);
                        Py_XDECREF(n);
                } else if (is(st, T_Import) || is(st, T_ImportFrom)) {
                        collect_import_names(st, set);
                } else if (is(st, T_Assign)) {
                        collect_field(w, st, S_targets, set);
                } else if (is(st, T_AnnAssign)) {
                        PyObject *v = scan_get(st, S_value);
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

bool scan_denied_builtin(walk *w, const char *name)
{
        for (char *const *v = w->p->deny_builtins; v && *v; v++)
                if (strcmp(*v, name) == 0)
                        return true;
        return acs_rules_site_builtin(name); /* whatever the profile: they read files */
}

/*
 * Is a read of name here certainly not the builtin? Function scopes follow
 * Python's rule (bound anywhere in the function = local everywhere in it);
 * at module level only an unconditional top-level binding that precedes the
 * top-level statement holding the read counts. class_ok: a class body's own
 * bindings count too (used for dunder names only).
 */
bool scan_shadowed(walk *w, const char *name, bool class_ok)
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
