/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The rules, applied node by node during one walk of the tree. Each check
 * says why it exists in terms of the bypass it closes.
 */
#include <stdio.h>
#include <string.h>

#include "scan-text.h"
#include "scan-walk-int.h"

#define PNAME(w) ((w)->p->name ? (w)->p->name : "?")

static void walk_node(walk *w, PyObject *node);
static void scan_check_attr_name(walk *w, PyObject *node, PyObject *recv, const char *attr);
static void scan_check_format_string(walk *w, PyObject *node, PyObject *str);
static bool scan_format_stream(walk *w, PyObject *node, PyObject *expr);
static void scan_walk_expr(walk *w, PyObject *node);

static const scan_checks checks = {
        .walk_expr = scan_walk_expr,
        .attr_name = scan_check_attr_name,
        .format_string = scan_check_format_string,
        .format_stream = scan_format_stream,
};

static void walk_any(walk *w, PyObject *o)
{
        if (PyList_Check(o)) {
                for (Py_ssize_t i = 0; i < PyList_GET_SIZE(o) && !w->err; i++)
                        walk_any(w, PyList_GET_ITEM(o, i));
        } else if (is_ast(o)) {
                walk_node(w, o);
        }
}

/*
 * Walk every child of node except field `skip` (an S_ index, or -1). The
 * node's instance dict holds exactly its fields and positions; iterating it
 * avoids a getattr per field (this loop is most of the walk's cost).
 */
static void walk_fields(walk *w, PyObject *node, int skip)
{
        PyObject *d = PyObject_GenericGetDict(node, NULL), *k, *v;
        Py_ssize_t pos = 0;
        if (!d) {
                PyErr_Clear();
                return;
        }
        while (PyDict_Next(d, &pos, &k, &v) && !w->err) {
                bool list = PyList_Check(v);
                if ((!list && !is_ast(v)) || (skip >= 0 && PyUnicode_Compare(k, C.s[skip]) == 0))
                        continue;
                /* interned both: typing.get_type_hints evaluates annotations */
                int ev = k == C.s[S_annotation] || k == C.s[S_returns];
                w->eval_ctx += ev;
                Py_INCREF(v);
                if (list)
                        walk_any(w, v);
                else
                        walk_node(w, v);
                Py_DECREF(v);
                w->eval_ctx -= ev;
        }
        Py_DECREF(d);
}

static void walk_field(walk *w, PyObject *node, int s)
{
        PyObject *v = scan_get(node, s);
        if (v)
                walk_any(w, v);
        Py_XDECREF(v);
}

static int push_scope(walk *w, int kind, PyObject *node)
{
        if (w->n_scopes == w->cap_scopes) {
                size_t n = w->cap_scopes ? w->cap_scopes * 2 : 8;
                scope *s = realloc(w->scopes, n * sizeof *s);
                if (!s)
                        return w->err = -ENOMEM;
                w->scopes = s;
                w->cap_scopes = n;
        }
        w->scopes[w->n_scopes++] = (scope){.kind = kind, .node = node, .bound = NULL};
        return 0;
}

static void pop_scope(walk *w)
{
        Py_CLEAR(w->scopes[w->n_scopes - 1].bound);
        w->n_scopes--;
}

/* `__builtins__` itself: the builtins namespace as a dict or module. */
static bool is_builtins_name(PyObject *node)
{
        const char *id = scan_name_id(node);
        return id && strcmp(id, "__builtins__") == 0;
}

/* ---- attribute names, however they are spelled ---- */

/* An attribute name reached on recv (NULL: unknown receiver). */
static void scan_check_attr_name(walk *w, PyObject *node, PyObject *recv, const char *attr)
{
        const char *rule = acs_rules_classify_attr(w->p, attr);
        if (rule)
                scan_report_at(w, node, rule, attr);
        if (acs_rules_dangerous_module(attr, true) && !acs_rules_import_allowed(w->p, attr)) {
                int line, col;
                scan_node_pos(node, &line, &col);
                scan_report(w, line, col, R_IMPORT, attr,
                       "attribute '%s' reaches module '%s', which profile %s does not allow (allowed: %s)",
                       attr, attr, PNAME(w), w->allowed);
        }
        if (!recv)
                return;
        if (is_builtins_name(recv) && scan_denied_builtin(w, attr))
                scan_report_at(w, node, R_BUILTIN, attr);
        /* statistics.random._os: judge a chain by the name it starts from */
        PyObject *root = recv;
        Py_INCREF(root);
        for (int i = 0; i < 16 && is(root, T_Attribute); i++) {
                PyObject *v = scan_get(root, S_value);
                Py_DECREF(root);
                if (!(root = v))
                        return;
        }
        const char *rid = scan_name_id(root);
        Py_DECREF(root); /* rid stays valid: the tree holds the Name */
        if (rid && (acs_rules_is_private(attr) || acs_rules_dangerous_module(attr, false) ||
                    scan_denied_builtin(w, attr))) {
                scan_add_cand(w, CAND_MODULE_ATTR, rid, attr, node);
                scan_add_cand(w, CAND_BUILTINS_ATTR, rid, attr, node);
        }
}

static void check_attribute(walk *w, PyObject *node)
{
        PyObject *a = scan_get(node, S_attr);
        bool skip = a && !maybe_sensitive(w, a);
        Py_XDECREF(a);
        if (skip)
                return;
        const char *attr = scan_get_str(node, S_attr);
        PyObject *value = scan_get(node, S_value);
        if (attr && value)
                scan_check_attr_name(w, node, value, attr);
        Py_XDECREF(value);
}

/*
 * X.__class__.__name__ (or __qualname__, __module__): the idiom of every
 * __repr__. It yields a string, nothing type(X).__name__ would not give, so
 * __class__ here is not reported even where the profile denies it. Returns
 * X (new reference) for such a node, else NULL.
 */
static PyObject *class_name_idiom(PyObject *node)
{
        const char *attr = scan_get_str(node, S_attr);
        if (!attr || (strcmp(attr, "__name__") != 0 && strcmp(attr, "__qualname__") != 0 &&
                      strcmp(attr, "__module__") != 0))
                return NULL;
        PyObject *v = scan_get(node, S_value), *obj = NULL;
        const char *inner = v && is(v, T_Attribute) ? scan_get_str(v, S_attr) : NULL;
        if (inner && strcmp(inner, "__class__") == 0)
                obj = scan_get(v, S_value);
        Py_XDECREF(v);
        return obj;
}

/* One known name for getattr(o, NAME) and friends; attrgetter("a.b.c") walks each part. */
static void check_known_attr(walk *w, PyObject *node, PyObject *recv, const char *fn, PyObject *s)
{
        const char *c = PyUnicode_AsUTF8(s);
        for (const char *part = c; part;) {
                const char *dot = strcmp(fn, "attrgetter") == 0 ? strchr(part, '.') : NULL;
                char *one = strndup(part, dot ? (size_t)(dot - part) : strlen(part));
                if (!one) {
                        w->err = -ENOMEM;
                        break;
                }
                scan_check_attr_name(w, node, dot ? NULL : recv, one);
                if (!dot && strcmp(fn, "attrgetter") != 0)
                        scan_members_note_getattr(w, node, recv, one);
                /* getattr(t, 'format'), methodcaller('format'): t is a template */
                if ((strcmp(one, "format") == 0 || strcmp(one, "format_map") == 0) &&
                    strcmp(fn, "hasattr") != 0)
                        scan_gen_template(w, node, strcmp(fn, "getattr") == 0 ? recv : NULL, one);
                free(one);
                part = dot ? dot + 1 : NULL;
        }
        PyErr_Clear();
}

/* getattr(o, EXPR) and friends: fold EXPR, or judge its known ends. */
static void check_attr_expr(walk *w, PyObject *node, PyObject *recv, PyObject *expr, const char *fn,
                            bool computed_ok)
{
        PyObject *s = expr ? scan_fold(w, expr) : NULL;
        if (s) {
                check_known_attr(w, node, recv, fn, s);
                Py_DECREF(s);
                return;
        }
        /* a variable that only ever holds known strings (scan-names.c); not
         * in a class body, whose reads a metaclass's __prepare__ may answer */
        bool class_body = w->n_scopes && w->scopes[w->n_scopes - 1].kind == SC_CLASS;
        PyObject *vals = expr && !class_body ? scan_const_values(w, scan_name_id(expr)) : NULL;
        if (vals) {
                for (Py_ssize_t i = 0; i < PyList_GET_SIZE(vals); i++)
                        check_known_attr(w, node, recv, fn, PyList_GET_ITEM(vals, i));
                Py_DECREF(vals);
                return;
        }
        if (computed_ok)
                return;
        PyObject *pre = expr ? scan_fold_edge(w, expr, true, 32) : NULL;
        PyObject *suf = expr ? scan_fold_edge(w, expr, false, 32) : NULL;
        const char *ps = pre ? PyUnicode_AsUTF8(pre) : NULL, *ss = suf ? PyUnicode_AsUTF8(suf) : NULL;
        bool safe = (ps && !acs_rules_prefix_sensitive(w->p, ps)) ||
                    (ss && !acs_rules_suffix_sensitive(w->p, ss) && !scan_name_id(recv));
        Py_XDECREF(pre);
        Py_XDECREF(suf);
        PyErr_Clear();
        if (!safe) {
                int line, col;
                scan_node_pos(node, &line, &col);
                scan_report(w, line, col, R_REFLECT, fn,
                       "%s() with a computed attribute name can reach anything; use plain attribute access or a dict",
                       fn);
        }
}

typedef struct {
        walk *w;
        PyObject *node;
} fmt_ud;

static int format_cb(void *ud, const char *attr)
{
        fmt_ud *u = ud;
        scan_check_attr_name(u->w, u->node, NULL, attr);
        return 0;
}

/* "{0.__class__}".format(x): field paths are attribute lookups done in C. */
static void scan_check_format_string(walk *w, PyObject *node, PyObject *str)
{
        const char *s = PyUnicode_AsUTF8(str);
        if (!s) {
                PyErr_Clear();
                return;
        }
        if (!strchr(s, '{') || !strchr(s, '.'))
                return;
        fmt_ud u = {w, node};
        acs_rules_format_attrs(s, format_cb, &u);
}

static void walk_tree(walk *w);
static void walk_done(walk *w);

/* Could this text, as code, produce any finding at all? Parsing costs more. */
static bool maybe_code(walk *w, const char *s)
{
        static const char *const tokens[] = {"__", "import", "type", "dir", "vars", "attr",
                                             "caller", "._", "_frame", "f_", "tb_", NULL};
        for (const char *const *t = tokens; *t; t++)
                if (strstr(s, *t))
                        return true;
        for (char *const *v = w->p->deny_builtins; v && *v; v++)
                if (strstr(s, *v))
                        return true;
        for (char *const *v = w->p->deny_attributes; v && *v; v++)
                if (strstr(s, *v))
                        return true;
        return false;
}

/*
 * Code inside a string still runs if anything evaluates it: typing's
 * get_type_hints() evals string annotations, ForwardRef, and any exec a
 * profile allows. A string that parses as Python is scanned like the
 * program; its findings point at the string.
 */
static void check_code_string(walk *w, PyObject *node, const char *s)
{
        if (w->str_depth >= 2 || !strchr(s, '(') || strlen(s) > 8192 || !maybe_code(w, s))
                return;
        PyCompilerFlags cf = {.cf_flags = PyCF_ONLY_AST, .cf_feature_version = PY_MINOR_VERSION};
        PyObject *tree = Py_CompileStringExFlags(s, "<string>", Py_file_input, &cf, -1);
        if (!tree) {
                PyErr_Clear();
                return;
        }
        walk sub = {.p = w->p, .checks = &checks, .budget = w->budget, .r = w->r, .tree = tree,
                    .allowed = w->allowed,
                    .str_depth = w->str_depth + 1, .sens = w->sens, .members = w->members};
        sub.aliases = PyDict_New();
        sub.copies = PyList_New(0);
        sub.blocks = PyList_New(0);
        sub.fields = PyList_New(0);
        size_t n0 = w->r->n_findings;
        if (sub.aliases && sub.copies && sub.blocks && sub.fields)
                walk_tree(&sub);
        if (sub.err)
                w->err = sub.err;
        sub.allowed = NULL;
        walk_done(&sub);
        int line, col;
        scan_node_pos(node, &line, &col);
        for (size_t i = n0; i < w->r->n_findings; i++) {
                acs_finding *f = &w->r->findings[i];
                char *m = NULL;
                f->line = line;
                f->col = col;
                if (asprintf(&m, "in code inside a string: %s", f->message) >= 0) {
                        char *c = acs_scan_clean_text(m, ACS_FINDING_MESSAGE_MAX);
                        free(m);
                        if (c) {
                                free(f->message);
                                f->message = c;
                        }
                }
        }
}

/*
 * A string is scanned as code only where something evaluates it
 * (w->eval_ctx: annotations, typing subscripts, the arguments of eval,
 * ForwardRef, cast, ...); printed, compared or stored it is data. Templates
 * are judged where they are formatted (scan_gen_template).
 */
static void check_constant(walk *w, PyObject *node)
{
        if (!w->eval_ctx)
                return;
        PyObject *v = scan_get(node, S_value);
        if (v && PyUnicode_Check(v)) {
                const char *c = PyUnicode_AsUTF8(v);
                if (c)
                        check_code_string(w, node, c);
                PyErr_Clear();
        }
        Py_XDECREF(v);
}

static void check_subscript(walk *w, PyObject *node)
{
        PyObject *value = scan_get(node, S_value), *slice = scan_get(node, S_slice);
        if (value && slice && is_builtins_name(value)) {
                PyObject *s = scan_fold(w, slice);
                const char *c = s ? PyUnicode_AsUTF8(s) : NULL;
                if (c && scan_denied_builtin(w, c))
                        scan_report_at(w, node, R_BUILTIN, c);
                Py_XDECREF(s);
                PyErr_Clear();
        }
        Py_XDECREF(value);
        Py_XDECREF(slice);
}

static void check_name(walk *w, PyObject *node)
{
        if (w->eval_ctx) { /* A = "code"; def f(x: A): the annotation is A's string */
                PyObject *vals = scan_const_values(w, scan_get_str(node, S_id));
                for (Py_ssize_t i = 0; vals && i < PyList_GET_SIZE(vals); i++) {
                        const char *c = PyUnicode_AsUTF8(PyList_GET_ITEM(vals, i));
                        if (c)
                                check_code_string(w, node, c);
                }
                Py_XDECREF(vals);
                PyErr_Clear();
        }
        PyObject *idobj = scan_get(node, S_id);
        bool skip = idobj && !maybe_sensitive(w, idobj);
        Py_XDECREF(idobj);
        if (skip)
                return;
        PyObject *ctx = scan_get(node, S_ctx);
        bool load = is(ctx, T_Load);
        Py_XDECREF(ctx);
        const char *id = scan_get_str(node, S_id);
        if (!load || !id)
                return;
        if (scan_denied_builtin(w, id)) {
                if (!scan_shadowed(w, id, false))
                        scan_report_at(w, node, R_BUILTIN, id);
                return;
        }
        if (node != w->call_func && scan_gen_is_generator(id) && strcmp(id, "NamedTuple") != 0 &&
            !scan_shadowed(w, id, false)) {
                int line, col; /* mk = make_dataclass; mk('C', names) would hide the names */
                scan_node_pos(node, &line, &col);
                scan_report(w, line, col, R_REFLECT, id,
                       "%s used as a value hides which names it reaches; call it directly with constant names", id);
                return;
        }
        if (strcmp(id, "__builtins__") == 0) {
                scan_report_at(w, node, R_REFLECT, id);
        } else if (acs_rules_is_dunder(id)) {
                if (!acs_rules_dunder_name_ok(id) && !scan_shadowed(w, id, true))
                        scan_report_at(w, node, R_REFLECT, id);
        } else if (acs_rules_namespace_builtin(id)) {
                if (!scan_shadowed(w, id, false))
                        scan_report_at(w, node, R_REFLECT, id);
        } else if (node != w->call_func &&
                   (strcmp(id, "getattr") == 0 || strcmp(id, "setattr") == 0 ||
                    strcmp(id, "delattr") == 0 || strcmp(id, "hasattr") == 0)) {
                /* g = getattr; g(x, "__class__") would hide the name */
                if (!scan_shadowed(w, id, false)) {
                        int line, col;
                        scan_node_pos(node, &line, &col);
                        scan_report(w, line, col, R_REFLECT, id,
                               "%s used as a value hides which attribute it reaches; call it directly with a constant name",
                               id);
                }
        }
}

static void check_call(walk *w, PyObject *node)
{
        PyObject *func = scan_get(node, S_func), *args = scan_get(node, S_args);
        Py_ssize_t n = args && PyList_Check(args) ? PyList_GET_SIZE(args) : 0;
        bool starred = false;
        for (Py_ssize_t i = 0; i < n; i++)
                starred |= is(PyList_GET_ITEM(args, i), T_Starred);
        PyObject *a0 = n > 0 ? PyList_GET_ITEM(args, 0) : NULL;
        PyObject *a1 = n > 1 ? PyList_GET_ITEM(args, 1) : NULL;
        const char *fn = scan_name_id(func);
        const char *meth = is(func, T_Attribute) ? scan_get_str(func, S_attr) : NULL;

        if (fn && (strcmp(fn, "getattr") == 0 || strcmp(fn, "setattr") == 0 ||
                   strcmp(fn, "delattr") == 0 || strcmp(fn, "hasattr") == 0) &&
            !scan_shadowed(w, fn, false)) {
                check_attr_expr(w, node, starred ? NULL : a0, starred ? NULL : a1, fn, false);
                if (a0 && a1 && is_builtins_name(a0)) {
                        PyObject *s = scan_fold(w, a1);
                        const char *c = s ? PyUnicode_AsUTF8(s) : NULL;
                        if (c && scan_denied_builtin(w, c))
                                scan_report_at(w, node, R_BUILTIN, c);
                        Py_XDECREF(s);
                        PyErr_Clear();
                }
        } else if (fn && strcmp(fn, "type") == 0 && (n >= 3 || starred) && !scan_shadowed(w, fn, false)) {
                int line, col;
                scan_node_pos(node, &line, &col);
                scan_report(w, line, col, R_TYPE, "type",
                       "type() with three arguments creates a class at run time; %s",
                       acs_rules_hint(R_TYPE, "type"));
        } else if (fn && strcmp(fn, "__import__") == 0) {
                PyObject *s = a0 ? scan_fold(w, a0) : NULL;
                const char *c = s ? PyUnicode_AsUTF8(s) : NULL;
                scan_check_module_name(w, node, c ? c : "<computed>");
                Py_XDECREF(s);
                PyErr_Clear();
        } else if (fn) {
                scan_add_cand(w, CAND_TYPE_CALL, fn, n >= 3 ? "3" : "", node);
        }
        const char *getfn = fn ? fn : meth;
        if (getfn && (strcmp(getfn, "attrgetter") == 0 || strcmp(getfn, "methodcaller") == 0)) {
                for (Py_ssize_t i = 0; i < (strcmp(getfn, "attrgetter") == 0 ? n : (n > 0)); i++)
                        check_attr_expr(w, node, NULL, PyList_GET_ITEM(args, i), getfn, false);
        }
        if (meth && (strcmp(meth, "__setattr__") == 0 || strcmp(meth, "__delattr__") == 0 ||
                     strcmp(meth, "__getattr__") == 0)) {
                /* object.__setattr__(o, "__class__", X): judge constant names only */
                for (Py_ssize_t i = 0; i < n && i < 2; i++)
                        check_attr_expr(w, node, NULL, PyList_GET_ITEM(args, i), meth, true);
        } else if (meth && (strcmp(meth, "format") == 0 || strcmp(meth, "format_map") == 0)) {
                PyObject *recv = scan_get(func, S_value);
                const char *rid = scan_name_id(recv);
                scan_gen_template(w, node, rid && strcmp(rid, "str") == 0 ? (starred ? NULL : a0) : recv,
                                  meth);
                Py_XDECREF(recv);
        } else if (meth && strcmp(meth, "get_field") == 0 && a0) {
                /* string.Formatter().get_field("0.__class__", ...): a bare field name */
                PyObject *s = scan_fold(w, a0), *f = s ? PyUnicode_FromFormat("{%U}", s) : NULL;
                if (f)
                        scan_check_format_string(w, node, f);
                Py_XDECREF(s);
                Py_XDECREF(f);
        } else if (meth && strcmp(meth, "import_module") == 0) {
                PyObject *s = a0 ? scan_fold(w, a0) : NULL;
                const char *c = s ? PyUnicode_AsUTF8(s) : NULL;
                scan_check_module_name(w, node, c ? c : "<computed>");
                Py_XDECREF(s);
        }
        scan_gen_call(w, node, func, fn, meth);
        PyErr_Clear();
        Py_XDECREF(func);
        Py_XDECREF(args);
}


/*
 * '{0._' + '_class__}' padded past what folding builds ('{0' + 'x'*10**6 +
 * '.__globals__}'): a template whose every part is known is read part
 * after part. False when some part is unknown.
 */
static bool scan_format_stream(walk *w, PyObject *node, PyObject *expr)
{
        fmt_ud u = {w, node};
        acs_fmt_stream f;
        acs_fmt_init(&f, format_cb, &u);
        if (!scan_fold_stream(w, expr, &f))
                return false;
        acs_fmt_end(&f);
        return true;
}

/* case C(__class__=x): class patterns look attributes up by name. */
static void check_match_class(walk *w, PyObject *node)
{
        PyObject *k = scan_get(node, S_kwd_attrs);
        for (Py_ssize_t i = 0; k && PyList_Check(k) && i < PyList_GET_SIZE(k); i++) {
                const char *a = PyUnicode_AsUTF8(PyList_GET_ITEM(k, i));
                if (a)
                        scan_check_attr_name(w, node, NULL, a);
        }
        PyErr_Clear();
        Py_XDECREF(k);
}

/* x = module (or x = type): remembered to resolve aliases after the walk. */
static void note_copy(walk *w, PyObject *node)
{
        PyObject *t = scan_get(node, S_targets), *v = scan_get(node, S_value);
        if (t && PyList_Check(t) && PyList_GET_SIZE(t) == 1 && is(PyList_GET_ITEM(t, 0), T_Name) &&
            is(v, T_Name)) {
                PyObject *dst = scan_get(PyList_GET_ITEM(t, 0), S_id), *src = scan_get(v, S_id);
                PyObject *pair = dst && src ? PyTuple_Pack(2, dst, src) : NULL;
                if (!pair || PyList_Append(w->copies, pair) < 0)
                        w->err = -ENOMEM;
                Py_XDECREF(pair);
                Py_XDECREF(dst);
                Py_XDECREF(src);
        }
        Py_XDECREF(t);
        Py_XDECREF(v);
}

static void walk_scoped(walk *w, PyObject *node, int kind, int body)
{
        walk_fields(w, node, body); /* decorators, defaults, bases: the enclosing scope */
        if (push_scope(w, kind, node) < 0)
                return;
        if (body >= 0)
                walk_field(w, node, body);
        pop_scope(w);
}

/* Walk field body with the names bound by field targets counted as bound. */
static void walk_block(walk *w, PyObject *node, int targets, int body)
{
        PyObject *set = PySet_New(NULL), *t = scan_get(node, targets);
        if (!set || !w->blocks || PyList_Append(w->blocks, set) < 0) {
                PyErr_Clear();
                Py_XDECREF(set);
                Py_XDECREF(t);
                walk_field(w, node, body);
                return;
        }
        if (t)
                scan_collect(w, t, set);
        walk_field(w, node, body);
        PyList_SetSlice(w->blocks, PyList_GET_SIZE(w->blocks) - 1, PyList_GET_SIZE(w->blocks), NULL);
        Py_DECREF(set);
        Py_XDECREF(t);
}

static void walk_node(walk *w, PyObject *node)
{
        if (w->err || w->r->n_findings >= MAX_FINDINGS || w->budget->over)
                return;
        if (++w->depth > MAX_DEPTH) {
                int line, col;
                scan_node_pos(node, &line, &col);
                scan_report(w, line, col, R_SYNTAX, "nesting", "the code is nested too deeply to check");
                w->depth--;
                return;
        }
        PyTypeObject *t = Py_TYPE(node);
        bool inner = w->in_chain; /* set for the value of an Attribute only */
        w->in_chain = false;
        if (t == (PyTypeObject *)C.t[T_Name]) {
                check_name(w, node);
        } else if (t == (PyTypeObject *)C.t[T_Attribute]) {
                PyObject *obj = class_name_idiom(node);
                if (obj) { /* X.__class__.__name__: only X needs checking */
                        walk_node(w, obj);
                        Py_DECREF(obj);
                } else {
                        /* the outermost attribute of a chain: judged by qualified name later */
                        if (!inner && w->members)
                                scan_members_note_chain(w, node);
                        check_attribute(w, node);
                        scan_gen_attr(w, node);
                        PyObject *v = scan_get(node, S_value);
                        w->in_chain = is(v, T_Attribute);
                        if (v)
                                walk_any(w, v);
                        w->in_chain = false;
                        Py_XDECREF(v);
                }
        } else if (t == (PyTypeObject *)C.t[T_Constant]) {
                check_constant(w, node);
        } else if (t == (PyTypeObject *)C.t[T_Call]) {
                check_call(w, node);
                PyObject *saved = w->call_func, *f = scan_get(node, S_func);
                int ev = scan_gen_evaluates_args(f);
                w->call_func = f;
                w->eval_ctx += ev;
                walk_fields(w, node, -1);
                w->eval_ctx -= ev;
                w->call_func = saved;
                Py_XDECREF(f);
        } else if (t == (PyTypeObject *)C.t[T_Import]) {
                scan_check_import(w, node);
        } else if (t == (PyTypeObject *)C.t[T_ImportFrom]) {
                scan_check_import_from(w, node);
        } else if (t == (PyTypeObject *)C.t[T_Subscript]) {
                check_subscript(w, node);
                scan_gen_attr(w, node);
                PyObject *v = scan_get(node, S_value);
                int ev = v && scan_gen_typing_subscript(v);
                if (v)
                        walk_node(w, v);
                w->eval_ctx += ev;
                walk_field(w, node, S_slice);
                w->eval_ctx -= ev;
                Py_XDECREF(v);
        } else if (t == (PyTypeObject *)C.t[T_FunctionDef] ||
                   t == (PyTypeObject *)C.t[T_AsyncFunctionDef]) {
                scan_gen_def(w, node, scan_get_str(node, S_name));
                walk_scoped(w, node, SC_FUNCTION, S_body);
        } else if (t == (PyTypeObject *)C.t[T_Lambda]) {
                walk_scoped(w, node, SC_FUNCTION, S_body);
        } else if (t == (PyTypeObject *)C.t[T_ClassDef]) {
                walk_scoped(w, node, SC_CLASS, S_body);
        } else if (t == (PyTypeObject *)C.t[T_ListComp] || t == (PyTypeObject *)C.t[T_SetComp] ||
                   t == (PyTypeObject *)C.t[T_DictComp] || t == (PyTypeObject *)C.t[T_GeneratorExp]) {
                if (push_scope(w, SC_COMP, node) == 0) {
                        walk_fields(w, node, -1);
                        pop_scope(w);
                }
        } else if (t == (PyTypeObject *)C.t[T_For] || t == (PyTypeObject *)C.t[T_AsyncFor]) {
                walk_field(w, node, S_target);
                walk_field(w, node, S_iter);
                walk_block(w, node, S_target, S_body);
                walk_field(w, node, S_orelse);
        } else if (t == (PyTypeObject *)C.t[T_With] || t == (PyTypeObject *)C.t[T_AsyncWith]) {
                walk_field(w, node, S_items);
                walk_block(w, node, S_items, S_body);
        } else if (t == (PyTypeObject *)C.t[T_MatchClass]) {
                check_match_class(w, node);
                walk_fields(w, node, -1);
        } else if (t == (PyTypeObject *)C.t[T_Assign]) {
                note_copy(w, node);
                scan_gen_assign(w, node);
                walk_fields(w, node, -1);
        } else if (t == (PyTypeObject *)C.t[T_Dict]) {
                scan_gen_dict(w, node);
                walk_fields(w, node, -1);
        } else if (t == (PyTypeObject *)C.t[T_AnnAssign]) {
                scan_gen_assign(w, node);
                walk_fields(w, node, -1);
        } else if (t == (PyTypeObject *)C.t[T_Module]) {
                PyObject *body = scan_get(node, S_body);
                for (Py_ssize_t i = 0; body && PyList_Check(body) && i < PyList_GET_SIZE(body); i++) {
                        w->top_index = i;
                        walk_any(w, PyList_GET_ITEM(body, i));
                }
                Py_XDECREF(body);
        } else if (t != (PyTypeObject *)C.t[T_Load] && t != (PyTypeObject *)C.t[T_Store]) {
                walk_fields(w, node, -1);
        }
        w->depth--;
}

static void scan_walk_expr(walk *w, PyObject *node)
{
        walk_any(w, node);
}

static void walk_tree(walk *w)
{
        if (push_scope(w, SC_MODULE, w->tree) == 0)
                walk_node(w, w->tree);
        scan_resolve_cands(w);
        scan_members_resolve(w);
        scan_gen_resolve(w);
}

static void walk_done(walk *w)
{
        while (w->n_scopes)
                pop_scope(w);
        free(w->scopes);
        for (size_t i = 0; i < w->n_cands; i++) {
                free(w->cands[i].recv);
                free(w->cands[i].attr);
        }
        free(w->cands);
        free(w->allowed);
        Py_XDECREF(w->module_bind);
        Py_XDECREF(w->no_shadow);
        Py_XDECREF(w->const_names);
        Py_XDECREF(w->const_longs);
        Py_XDECREF(w->fold_memo);
        Py_XDECREF(w->aliases);
        Py_XDECREF(w->copies);
        Py_XDECREF(w->blocks);
        Py_XDECREF(w->mod_binds);
        Py_XDECREF(w->chains);
        Py_XDECREF(w->fields);
        Py_XDECREF(w->tree);
}

static int cmp_finding(const void *a, const void *b)
{
        const acs_finding *x = a, *y = b;
        if (x->line != y->line)
                return x->line < y->line ? -1 : 1;
        if (x->col != y->col)
                return x->col < y->col ? -1 : 1;
        return strcmp(x->rule, y->rule);
}

/* A SyntaxError (or a ValueError for NUL bytes) becomes one finding. */
static int syntax_finding(const char *src, size_t len, acs_scan_result *ret)
{
        PyObject *type, *value, *tb;
        PyErr_Fetch(&type, &value, &tb);
        PyErr_NormalizeException(&type, &value, &tb);
        int line = 1, col = 0;
        char msg[512] = "invalid source";
        if (type && PyErr_GivenExceptionMatches(type, PyExc_MemoryError)) {
                Py_XDECREF(type);
                Py_XDECREF(value);
                Py_XDECREF(tb);
                PyErr_Clear();
                return acs_scan_add_finding(ret, R_LIMIT, "memory", 1, 0,
                                            "the scan ran out of memory parsing the code; "
                                            "nothing of it was checked");
        }
        if (value && PyErr_GivenExceptionMatches(type, PyExc_SyntaxError)) {
                line = scan_get_int(value, S_lineno);
                col = scan_get_int(value, S_offset) - 1;
                const char *m = scan_get_str(value, S_msg);
                if (m)
                        snprintf(msg, sizeof msg, "%s", m);
        } else if (value) {
                PyObject *s = PyObject_Str(value);
                const char *m = s ? PyUnicode_AsUTF8(s) : NULL;
                if (m)
                        snprintf(msg, sizeof msg, "%s", m);
                Py_XDECREF(s);
                const char *nul = memchr(src, '\0', len);
                for (const char *c = src; nul && c < nul; c++)
                        line += *c == '\n';
        }
        if (!msg[0] && type && PyType_Check(type))
                snprintf(msg, sizeof msg, "%s while parsing", ((PyTypeObject *)type)->tp_name);
        Py_XDECREF(type);
        Py_XDECREF(value);
        Py_XDECREF(tb);
        PyErr_Clear();
        return acs_scan_add_finding(ret, R_SYNTAX, "syntax", line < 1 ? 1 : line, col < 0 ? 0 : col,
                                    msg);
}

int acs_scan_walk(const acs_profile *p, const char *src, size_t len, const char *filename,
                  bool ignore_cookie, acs_scan_result *ret, acs_error *err)
{
        int r = acs_scan_cache_init(err);
        if (r < 0)
                return r;
        PyCompilerFlags cf = {.cf_flags = PyCF_ONLY_AST | (ignore_cookie ? PyCF_IGNORE_COOKIE : 0),
                              .cf_feature_version = PY_MINOR_VERSION};
        PyObject *tree = Py_CompileStringExFlags(src, filename, Py_file_input, &cf, -1);
        if (!tree)
                return syntax_finding(src, len, ret);
        scan_budget budget = {0};
        walk w = {.p = p, .checks = &checks, .budget = &budget, .r = ret, .tree = tree};
        w.aliases = PyDict_New();
        w.copies = PyList_New(0);
        w.blocks = PyList_New(0);
        w.fields = PyList_New(0);
        w.sens = acs_scan_sensitive(p);
        w.allowed = acs_rules_list(p->allow_imports, (size_t)-1); /* all of it: an agent acts on it */
        w.members = acs_rules_members_needed(p);
        if (!w.aliases || !w.copies || !w.blocks || !w.fields || !w.allowed) {
                walk_done(&w);
                return acs_scan_error(err, -ENOMEM, "out of memory");
        }
        walk_tree(&w);
        r = w.err;
        walk_done(&w);
        PyErr_Clear();
        if (r < 0)
                return acs_scan_error(err, r, "out of memory while scanning");
        if (budget.over && (r = acs_scan_add_finding(ret, R_LIMIT, "folding", 1, 0,
                                                     "the code builds more constant text than the scan reads "
                                                     "(over 32 Mi characters); the scan stopped")) < 0)
                return acs_scan_error(err, r, "out of memory");
        /* no findings: findings is NULL, which qsort may not be given (UBSan) */
        if (ret->n_findings > 1)
                qsort(ret->findings, ret->n_findings, sizeof *ret->findings, cmp_finding);
        return 0;
}
