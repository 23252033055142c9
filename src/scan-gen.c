/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Library code that reaches attributes, generates code or changes modules
 * for the program, with names the program chooses:
 *  - str.format / format_map templates (a field path is an attribute lookup
 *    done in C): the template must be known, or it is refused;
 *  - functools.update_wrapper / wraps (getattr and setattr of the names in
 *    assigned/updated), dataclasses.make_dataclass, collections.namedtuple,
 *    typing.NamedTuple (generated code with the field names):
 *    the names must be known and are judged like attribute names;
 *  - class patterns in match: a positional pattern reads the attributes
 *    named in __match_args__ (and a metaclass __instancecheck__,
 *    __subclasshook__ or ABC.register lets any object match), so
 *    __match_args__ must be known, and with such a hook in the program the
 *    fields that become __match_args__ are judged too;
 *  - writing or deleting attributes of what an import bound (monkeypatching
 *    an allowed module changes it for the library code that uses it).
 */
#include <stdio.h>
#include <string.h>

#include "scan-walk-int.h"

static void unknown_names(walk *w, PyObject *node, const char *fn)
{
        int line, col;
        scan_node_pos(node, &line, &col);
        scan_report(w, line, col, R_REFLECT, fn,
               "%s%s with names the scan cannot compute can reach any attribute; give the names as constants",
               fn, fn[0] == '_' ? "" : "()");
}

void scan_gen_template(walk *w, PyObject *node, PyObject *expr, const char *fn)
{
        if (expr) {
                Py_ssize_t n = scan_fold_len(w, expr);
                if (n >= 0) {
                        PyObject *s = scan_fold(w, expr);
                        if (s) {
                                w->checks->format_string(w, node, s);
                                Py_DECREF(s);
                                return;
                        }
                } else if (n == -2 && w->checks->format_stream(w, node, expr)) {
                        return;
                }
                bool class_body = w->n_scopes && w->scopes[w->n_scopes - 1].kind == SC_CLASS;
                PyObject *vals = class_body ? NULL : scan_const_values(w, scan_name_id(expr));
                if (vals) {
                        for (Py_ssize_t i = 0; i < PyList_GET_SIZE(vals); i++)
                                w->checks->format_string(w, node, PyList_GET_ITEM(vals, i));
                        Py_DECREF(vals);
                        return;
                }
                /* t = '{0' + 'x'*10**6 + '.__globals__}'; t.format(0): read part after part */
                PyObject *e = class_body ? NULL : scan_const_long(w, scan_name_id(expr));
                bool streamed = e && w->checks->format_stream(w, node, e);
                Py_XDECREF(e);
                if (streamed)
                        return;
        }
        PyErr_Clear();
        int line, col;
        scan_node_pos(node, &line, &col);
        scan_report(w, line, col, R_REFLECT, fn,
               "str.%s() with a template the scan cannot compute can read any attribute ('{0.__class__}'); "
               "use a constant template or an f-string",
               fn);
}

/* Judge one name (or "a b, c" field list) a library will getattr/setattr. */
static void check_names_str(walk *w, PyObject *node, PyObject *s, bool split)
{
        const char *c = PyUnicode_AsUTF8(s);
        if (!c) {
                PyErr_Clear();
                return;
        }
        if (!split) {
                w->checks->attr_name(w, node, NULL, c);
                return;
        }
        while (*c) {
                size_t skip = strspn(c, " ,\t\n"), len;
                c += skip;
                len = strcspn(c, " ,\t\n");
                if (len == 0)
                        break;
                char *one = strndup(c, len);
                if (!one) {
                        w->err = -ENOMEM;
                        return;
                }
                w->checks->attr_name(w, node, NULL, one);
                free(one);
                c += len;
        }
}

static bool check_name_expr(walk *w, PyObject *node, PyObject *e, bool split)
{
        PyObject *s = scan_fold(w, e);
        if (s) {
                check_names_str(w, node, s, split);
                Py_DECREF(s);
                return true;
        }
        PyObject *vals = scan_const_values(w, scan_name_id(e));
        if (!vals)
                return false;
        for (Py_ssize_t i = 0; i < PyList_GET_SIZE(vals); i++)
                check_names_str(w, node, PyList_GET_ITEM(vals, i), split);
        Py_DECREF(vals);
        return true;
}

/* A string that a code generator puts in as an annotation: scanned as code. */
static void annotation_code(walk *w, PyObject *e)
{
        w->eval_ctx++;
        w->checks->walk_expr(w, e);
        w->eval_ctx--;
}

/*
 * names: a sequence of attribute names (fields: of field specs, "a b" or
 * ("a", type)). Constant elements are judged; anything else is refused.
 */
static void check_names(walk *w, PyObject *node, PyObject *names, bool fields, const char *fn)
{
        if (is(names, T_Attribute)) { /* functools.WRAPPER_ASSIGNMENTS: the defaults */
                const char *a = scan_get_str(names, S_attr);
                if (a && (strcmp(a, "WRAPPER_ASSIGNMENTS") == 0 || strcmp(a, "WRAPPER_UPDATES") == 0))
                        return;
        }
        if (!is(names, T_List) && !is(names, T_Tuple) && !is(names, T_Set)) {
                if (!check_name_expr(w, node, names, fields))
                        unknown_names(w, node, fn);
                return;
        }
        PyObject *elts = scan_get(names, S_elts);
        for (Py_ssize_t i = 0; elts && PyList_Check(elts) && i < PyList_GET_SIZE(elts); i++) {
                PyObject *e = PyList_GET_ITEM(elts, i);
                if (fields && (is(e, T_Tuple) || is(e, T_List))) {
                        PyObject *parts = scan_get(e, S_elts);
                        Py_ssize_t n = parts && PyList_Check(parts) ? PyList_GET_SIZE(parts) : 0;
                        if (n < 1 || !check_name_expr(w, node, PyList_GET_ITEM(parts, 0), false))
                                unknown_names(w, node, fn);
                        if (n >= 2)
                                annotation_code(w, PyList_GET_ITEM(parts, 1));
                        Py_XDECREF(parts);
                } else if (!check_name_expr(w, node, e, false)) {
                        unknown_names(w, node, fn);
                }
        }
        Py_XDECREF(elts);
        PyErr_Clear();
}

/* make_dataclass(namespace={...}): its keys become class attributes. */
static void check_namespace(walk *w, PyObject *node, PyObject *ns, const char *fn)
{
        if (!is(ns, T_Dict)) {
                unknown_names(w, node, fn);
                return;
        }
        PyObject *keys = scan_get(ns, S_keys), *vals = scan_get(ns, S_values);
        for (Py_ssize_t i = 0; keys && PyList_Check(keys) && i < PyList_GET_SIZE(keys); i++) {
                PyObject *k = PyList_GET_ITEM(keys, i), *s = k != Py_None ? scan_fold(w, k) : NULL;
                const char *c = s ? PyUnicode_AsUTF8(s) : NULL;
                if (!c)
                        unknown_names(w, node, fn);
                else if (strcmp(c, "__match_args__") == 0 && vals && PyList_Check(vals) &&
                         i < PyList_GET_SIZE(vals))
                        check_names(w, node, PyList_GET_ITEM(vals, i), false, "__match_args__");
                else
                        w->checks->attr_name(w, node, NULL, c);
                Py_XDECREF(s);
        }
        Py_XDECREF(keys);
        Py_XDECREF(vals);
        PyErr_Clear();
}

/* Calls that evaluate a string argument as code (or keep it to evaluate later). */
bool scan_gen_evaluates_args(PyObject *func)
{
        static const char *const v[] = {"eval", "exec", "compile", "ForwardRef", "cast", "TypeVar",
                                        "NewType", "NamedTuple", "TypedDict", "get_type_hints",
                                        "_eval_type", "_evaluate", "evaluate_forward_ref", NULL};
        const char *n = is(func, T_Attribute) ? scan_get_str(func, S_attr) : scan_name_id(func);
        for (const char *const *p = v; n && *p; p++)
                if (strcmp(*p, n) == 0)
                        return true;
        return false;
}

/* X[...] where X may be a generic: typing turns a string in it into a ForwardRef. */
bool scan_gen_typing_subscript(PyObject *value)
{
        static const char *const v[] = {"list", "dict", "tuple", "set", "frozenset", "type", NULL};
        const char *n = is(value, T_Attribute) ? scan_get_str(value, S_attr) : scan_name_id(value);
        if (!n)
                return false;
        if (n[0] >= 'A' && n[0] <= 'Z')
                return true;
        for (const char *const *p = v; *p; p++)
                if (strcmp(*p, n) == 0)
                        return true;
        return false;
}

enum { G_ATTRS, G_FIELDS, G_NS };
static const struct gen {
        const char *name;
        int pos;
        const char *kw;
        int kind;
} gens[] = {
        {"update_wrapper", 2, "assigned", G_ATTRS}, {"update_wrapper", 3, "updated", G_ATTRS},
        {"wraps", 1, "assigned", G_ATTRS},          {"wraps", 2, "updated", G_ATTRS},
        {"make_dataclass", 1, "fields", G_FIELDS},  {"make_dataclass", -1, "namespace", G_NS},
        {"namedtuple", 1, "field_names", G_FIELDS}, {"NamedTuple", 1, "fields", G_FIELDS},
};

bool scan_gen_is_generator(const char *name)
{
        for (size_t i = 0; i < sizeof gens / sizeof gens[0]; i++)
                if (strcmp(gens[i].name, name) == 0)
                        return true;
        return false;
}

/* The function a call reaches, by its last name: `from functools import wraps as w` is wraps. */
static const char *callee_name(walk *w, PyObject *func, const char *meth)
{
        if (meth)
                return meth;
        PyObject *id = is(func, T_Name) ? scan_get(func, S_id) : NULL; /* interned: no allocation */
        PyObject *m = id ? PyDict_GetItem(w->aliases, id) : NULL;
        const char *full = m ? PyUnicode_AsUTF8(m) : NULL, *dot = full ? strrchr(full, '.') : NULL;
        Py_XDECREF(id);
        PyErr_Clear();
        return dot ? dot + 1 : scan_name_id(func);
}

static bool interesting_call(const char *name)
{
        return strcmp(name, "register") == 0 || strcmp(name, "setattr") == 0 ||
               strcmp(name, "delattr") == 0 || scan_gen_is_generator(name);
}

static PyObject *keyword_value(PyObject *kws, const char *name, bool *spread)
{
        PyObject *found = NULL;
        for (Py_ssize_t i = 0; kws && PyList_Check(kws) && i < PyList_GET_SIZE(kws); i++) {
                PyObject *k = PyList_GET_ITEM(kws, i);
                const char *a = scan_get_str(k, S_arg);
                if (!a)
                        *spread = true; /* **opts */
                else if (!found && strcmp(a, name) == 0)
                        found = scan_get(k, S_value);
        }
        return found;
}

void scan_gen_call(walk *w, PyObject *node, PyObject *func, const char *fn, const char *meth)
{
        const char *name = callee_name(w, func, meth);
        if (!name || !interesting_call(name))
                return;
        if (strcmp(name, "register") == 0) /* ABC.register: any class's objects match */
                w->hook = true;
        PyObject *args = scan_get(node, S_args), *kws = scan_get(node, S_keywords);
        Py_ssize_t n = args && PyList_Check(args) ? PyList_GET_SIZE(args) : 0;
        if ((strcmp(name, "setattr") == 0 || strcmp(name, "delattr") == 0) && fn && n >= 1) {
                /* setattr(module, name, v): the same as module.name = v */
                PyObject *root = PyList_GET_ITEM(args, 0);
                Py_INCREF(root);
                for (int i = 0; i < 16 && is(root, T_Attribute); i++) {
                        PyObject *v = scan_get(root, S_value);
                        Py_DECREF(root);
                        if (!(root = v))
                                break;
                }
                const char *rid = scan_name_id(root);
                PyObject *s = n >= 2 ? scan_fold(w, PyList_GET_ITEM(args, 1)) : NULL;
                const char *attr = s ? PyUnicode_AsUTF8(s) : NULL;
                if (rid)
                        scan_add_cand(w, CAND_MODULE_WRITE, rid, attr ? attr : "<computed>", node);
                if (attr && strcmp(attr, "__match_args__") == 0 && n >= 3)
                        check_names(w, node, PyList_GET_ITEM(args, 2), false, "__match_args__");
                Py_XDECREF(s);
                Py_XDECREF(root);
                PyErr_Clear();
        }
        for (size_t g = 0; g < sizeof gens / sizeof gens[0]; g++) {
                if (strcmp(gens[g].name, name) != 0)
                        continue;
                bool spread = false;
                for (Py_ssize_t i = 0; i < n && (gens[g].pos < 0 || i <= gens[g].pos); i++)
                        spread |= is(PyList_GET_ITEM(args, i), T_Starred);
                PyObject *v = gens[g].pos >= 0 && n > gens[g].pos ? PyList_GET_ITEM(args, gens[g].pos) : NULL;
                PyObject *kv = keyword_value(kws, gens[g].kw, &spread);
                if (spread) {
                        unknown_names(w, node, name);
                } else if (v || kv) {
                        if (gens[g].kind == G_NS)
                                check_namespace(w, node, v ? v : kv, name);
                        else
                                check_names(w, node, v ? v : kv, gens[g].kind == G_FIELDS, name);
                }
                Py_XDECREF(kv);
        }
        Py_XDECREF(args);
        Py_XDECREF(kws);
}

/* An Attribute, Name or Subscript used as a value, stored or deleted. */
void scan_gen_attr(walk *w, PyObject *node)
{
        PyObject *ctx = scan_get(node, S_ctx);
        bool store = is(ctx, T_Store) || is(ctx, T_Del);
        Py_XDECREF(ctx);
        if (store) {
                PyObject *root = scan_get(node, S_value);
                const char *attr = is(node, T_Attribute) ? scan_get_str(node, S_attr) : NULL;
                while (root && is(root, T_Attribute)) {
                        if (!attr)
                                attr = scan_get_str(root, S_attr);
                        PyObject *v = scan_get(root, S_value);
                        Py_DECREF(root);
                        root = v;
                }
                const char *rid = scan_name_id(root);
                if (rid && attr) /* obj[k] = v: only when obj is an attribute of something */
                        scan_add_cand(w, CAND_MODULE_WRITE, rid, attr, node);
                Py_XDECREF(root);
                return;
        }
        if (!is(node, T_Attribute) || node == w->call_func)
                return;
        PyObject *ao = scan_get(node, S_attr);
        bool skip = !ao || !maybe_sensitive(w, ao); /* one hash lookup for most names */
        Py_XDECREF(ao);
        if (skip)
                return;
        const char *attr = scan_get_str(node, S_attr);
        if (attr && (strcmp(attr, "format") == 0 || strcmp(attr, "format_map") == 0)) {
                PyObject *v = scan_get(node, S_value); /* f = t.format: t is the template */
                const char *rid = scan_name_id(v);
                scan_gen_template(w, node, rid && strcmp(rid, "str") == 0 ? NULL : v, attr);
                Py_XDECREF(v);
        } else if (attr && scan_gen_is_generator(attr) && strcmp(attr, "NamedTuple") != 0) {
                unknown_names(w, node, attr);
        }
}

/*
 * Class bodies: __match_args__ (assigned: judged; a function or property:
 * refused), the isinstance hooks, and annotated fields (which dataclasses
 * and NamedTuple turn into __match_args__), judged once the walk knows
 * whether a hook exists.
 */
void scan_gen_def(walk *w, PyObject *node, const char *name)
{
        if (!name)
                return;
        if (strcmp(name, "__instancecheck__") == 0 || strcmp(name, "__subclasscheck__") == 0 ||
            strcmp(name, "__subclasshook__") == 0)
                w->hook = true;
        else if (strcmp(name, "__match_args__") == 0)
                unknown_names(w, node, "__match_args__");
}

void scan_gen_assign(walk *w, PyObject *node)
{
        bool ann = is(node, T_AnnAssign);
        PyObject *ts = ann ? NULL : scan_get(node, S_targets), *t1 = ann ? scan_get(node, S_target) : NULL;
        PyObject *value = scan_get(node, S_value);
        bool class_body = w->n_scopes && w->scopes[w->n_scopes - 1].kind == SC_CLASS;
        Py_ssize_t n = ts && PyList_Check(ts) ? PyList_GET_SIZE(ts) : (t1 != NULL);
        for (Py_ssize_t i = 0; i < n; i++) {
                PyObject *t = ts ? PyList_GET_ITEM(ts, i) : t1;
                const char *id = scan_name_id(t);
                const char *a = is(t, T_Attribute) ? scan_get_str(t, S_attr) : NULL;
                const char *nm = id ? id : a;
                if (nm && strcmp(nm, "__match_args__") == 0 && (a || class_body)) {
                        if (value && value != Py_None)
                                check_names(w, node, value, false, "__match_args__");
                } else if (nm && (!a || class_body)) {
                        scan_gen_def(w, node, nm);
                }
                if (ann && id && class_body && w->fields) {
                        PyObject *pair = Py_BuildValue("(Os)", t, id);
                        if (!pair || PyList_Append(w->fields, pair) < 0)
                                w->err = -ENOMEM;
                        Py_XDECREF(pair);
                }
        }
        Py_XDECREF(ts);
        Py_XDECREF(t1);
        Py_XDECREF(value);
        PyErr_Clear();
}

/* M('C', (), {'__match_args__': names}): a class namespace built as a dict. */
void scan_gen_dict(walk *w, PyObject *node)
{
        PyObject *keys = scan_get(node, S_keys), *vals = scan_get(node, S_values);
        for (Py_ssize_t i = 0; keys && vals && PyList_Check(keys) && PyList_Check(vals) &&
                               i < PyList_GET_SIZE(keys) && i < PyList_GET_SIZE(vals); i++) {
                PyObject *k = PyList_GET_ITEM(keys, i), *v = is(k, T_Constant) ? scan_get(k, S_value) : NULL;
                if (v && PyUnicode_Check(v) && PyUnicode_CompareWithASCIIString(v, "__match_args__") == 0)
                        check_names(w, node, PyList_GET_ITEM(vals, i), false, "__match_args__");
                Py_XDECREF(v);
        }
        Py_XDECREF(keys);
        Py_XDECREF(vals);
        PyErr_Clear();
}

void scan_gen_resolve(walk *w)
{
        for (Py_ssize_t i = 0; w->hook && w->fields && i < PyList_GET_SIZE(w->fields) && !w->err; i++) {
                PyObject *pair = PyList_GET_ITEM(w->fields, i);
                const char *id = PyUnicode_AsUTF8(PyTuple_GET_ITEM(pair, 1));
                if (id)
                        w->checks->attr_name(w, PyTuple_GET_ITEM(pair, 0), NULL, id);
        }
        PyErr_Clear();
}
