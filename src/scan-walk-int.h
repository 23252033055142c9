/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Inside acs-scan.so only: state and helpers shared by scan-walk.c and scan-check.c. */
#pragma once

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include "scan-rules.h"
#include "scan-walk.h"

#define MAX_DEPTH 3000
/* Once this many findings are in, the verdict is settled: the walk stops. */
#define MAX_FINDINGS 200
/* scan-fold.c: the longest string folding builds (characters; CPython's own
 * compile-time folding stops at 4096 too), and all the string work of one
 * scan, past which it is refused with rule scan-limit. */
#define FOLD_MAX 4096
#define FOLD_WORK_MAX ((size_t)32 << 20)

#define TYPES(X)                                                                                   \
        X(AST) X(Module) X(Import) X(ImportFrom) X(Name) X(Attribute) X(Call) X(Constant)           \
        X(Subscript) X(BinOp) X(Add) X(Mult) X(JoinedStr) X(FormattedValue) X(FunctionDef)          \
        X(AsyncFunctionDef) X(Lambda) X(ClassDef) X(ListComp) X(SetComp) X(DictComp)                \
        X(GeneratorExp) X(Global) X(Nonlocal) X(Store) X(Del) X(Load) X(MatchClass) X(MatchAs)     \
        X(MatchStar) X(MatchMapping) X(ExceptHandler) X(Assign) X(AnnAssign) X(List) X(Tuple)     \
        X(Starred) X(For) X(AsyncFor) X(With) X(AsyncWith) X(arguments) X(arg) X(alias) X(comprehension) \
        X(NamedExpr) X(Set) X(keyword) X(Dict)
#define STRS(X)                                                                                    \
        X(_fields) X(id) X(ctx) X(attr) X(value) X(func) X(args) X(keywords) X(names) X(name)     \
        X(asname) X(module) X(level) X(lineno) X(col_offset) X(slice) X(left) X(right) X(op)      \
        X(values) X(kwd_attrs) X(body) X(targets) X(target) X(arg) X(posonlyargs) X(kwonlyargs)   \
        X(vararg) X(kwarg) X(rest) X(elts) X(generators) X(conversion) X(format_spec) X(msg)      \
        X(offset) X(join) X(decorator_list) X(iter) X(orelse) X(items) X(optional_vars) X(handlers) X(finalbody) \
        X(ifs) X(annotation) X(returns) X(keys)

#define ENUM_T(n) T_##n,
#define ENUM_S(n) S_##n,
enum { TYPES(ENUM_T) T__COUNT };
enum { STRS(ENUM_S) S__COUNT };
struct acs_scan_cache {
        bool ready;
        PyObject *t[T__COUNT];
        PyObject *s[S__COUNT];
        PyObject *normalize; /* unicodedata.normalize, loaded on first non-ASCII name */
        PyObject *sens;      /* see acs_scan_sensitive() */
        unsigned long sens_sum;
};
extern struct acs_scan_cache acs_scan_C;
#define C acs_scan_C

enum { SC_MODULE, SC_FUNCTION, SC_CLASS, SC_COMP };
typedef struct scope {
        int kind;
        PyObject *node;  /* borrowed */
        PyObject *bound; /* set of names bound here; computed when first needed */
} scope;

/* Checks that need every import first: resolved after the walk. */
enum { CAND_MODULE_ATTR, CAND_BUILTINS_ATTR, CAND_TYPE_CALL, CAND_MODULE_WRITE };
typedef struct cand {
        int kind;
        char *recv, *attr;
        int line, col;
} cand;

/* Shared by a walk and the walks of code found in its strings. */
typedef struct scan_budget {
        size_t work; /* characters of string work so far */
        bool over;   /* FOLD_WORK_MAX reached: folding stopped, the scan is refused */
} scan_budget;

/*
 * The walker's checks that a code generator's template (scan-gen.c) applies
 * to what it builds: scan-check.c calls scan-gen.c and passes these in the
 * walk, so scan-gen.c never calls back into the file above it by name.
 */
typedef struct walk walk;
typedef struct scan_checks {
        void (*walk_expr)(walk *w, PyObject *node);
        void (*attr_name)(walk *w, PyObject *node, PyObject *recv, const char *attr);
        void (*format_string)(walk *w, PyObject *node, PyObject *str);
        bool (*format_stream)(walk *w, PyObject *node, PyObject *expr);
} scan_checks;

struct walk {
        const acs_profile *p;
        const scan_checks *checks; /* scan-check.c's, for scan-gen.c */
        scan_budget *budget;
        acs_scan_result *r;
        int err;
        PyObject *tree;
        scope *scopes;
        size_t n_scopes, cap_scopes;
        Py_ssize_t top_index;
        PyObject *module_bind; /* name -> index of the top-level statement binding it */
        PyObject *no_shadow;   /* names deleted or declared global/nonlocal anywhere */
        PyObject *aliases;     /* name -> dotted module name */
        PyObject *copies;      /* list of (dst, src) from `dst = src` */
        cand *cands;
        size_t n_cands, cap_cands;
        PyObject *call_func; /* the func of the Call being walked (borrowed) */
        int depth;
        int str_depth; /* scanning code found inside a string */
        PyObject *blocks; /* list of sets: loop/with targets bound around the code being walked */
        char *allowed; /* "math, cmath, …" for messages */
        PyObject *sens; /* borrowed: acs_scan_sensitive() */
        PyObject *const_names; /* scan-names.c: name -> its possible strings (or None) */
        PyObject *const_longs; /* scan-names.c: name -> its one known-but-long value's expression */
        PyObject *fold_memo;   /* scan-fold.c: node -> the length of its folded value */
        int tmpl_covered;      /* inside a + chain already read as a template */
        /* scan-members.c, when the profile judges qualified names (w->members) */
        bool members;
        bool in_chain;         /* walking the value of an Attribute that is itself an Attribute */
        PyObject *mod_binds;   /* name -> list of modules allowed imports bound to it */
        PyObject *chains;      /* Attribute nodes and (node, recv, attr) getattr tuples */
        /* scan-gen.c */
        int eval_ctx;     /* walking where a string is evaluated as code (annotations, typing[...]) */
        bool hook;        /* __instancecheck__, __subclasshook__ or .register(): any object matches */
        PyObject *fields; /* (node, name) of annotated class fields, judged when hook */
};

static inline bool is(PyObject *o, int t)
{
        return o && Py_TYPE(o) == (PyTypeObject *)C.t[t];
}

static inline bool is_ast(PyObject *o)
{
        return PyObject_TypeCheck(o, (PyTypeObject *)C.t[T_AST]);
}

PyObject *scan_get(PyObject *o, int s);
const char *scan_get_str(PyObject *o, int s);
int scan_get_int(PyObject *o, int s);
const char *scan_name_id(PyObject *node);
void scan_node_pos(PyObject *node, int *line, int *col);
void scan_report(walk *w, int line, int col, const char *rule, const char *name, const char *fmt, ...)
        __attribute__((format(printf, 6, 7)));
void scan_report_at(walk *w, PyObject *node, const char *rule, const char *name);
int scan_add_cand(walk *w, int kind, const char *recv, const char *attr, PyObject *node);
bool scan_shadowed(walk *w, const char *name, bool class_ok);
/* The profile's deny_builtins, and the builtins that read files whatever it says. */
bool scan_denied_builtin(walk *w, const char *name);
void scan_collect(walk *w, PyObject *o, PyObject *set);
/* scan-fold.c: node's value (NFKC) when it is known and at most FOLD_MAX long, else NULL */
PyObject *scan_fold(walk *w, PyObject *node);
/* The known leading (prefix) or trailing text of a string expression, or NULL. */
PyObject *scan_fold_edge(walk *w, PyObject *node, bool prefix, int budget);
/* The length of node's value: 0..FOLD_MAX, -2 known but longer, -1 unknown. */
Py_ssize_t scan_fold_len(walk *w, PyObject *node);
/* Feed node's value (known, of any length) to f without building it; false when unknown. */
bool scan_fold_stream(walk *w, PyObject *node, acs_fmt_stream *f);
/* scan-names.c: the strings NAME can hold (new list), or NULL when unknown */
PyObject *scan_const_values(walk *w, const char *name);
/* The expression bound once to NAME whose value is known but longer than
 * folding builds (new reference), or NULL. */
PyObject *scan_const_long(walk *w, const char *name);
int acs_scan_cache_init(acs_error *err);

/* scan-members.c */
void scan_members_bind(walk *w, const char *name, const char *module);
void scan_members_note_chain(walk *w, PyObject *attr_node);
void scan_members_note_getattr(walk *w, PyObject *node, PyObject *recv, const char *attr);
void scan_members_resolve(walk *w);
bool scan_members_check_import(walk *w, PyObject *node, const char *qualified);
void scan_members_check_star(walk *w, PyObject *node, const char *mod);

/* scan-gen.c */
void scan_gen_template(walk *w, PyObject *node, PyObject *expr, const char *fn);
bool scan_gen_is_generator(const char *name);
void scan_gen_call(walk *w, PyObject *node, PyObject *func, const char *fn, const char *meth);
void scan_gen_attr(walk *w, PyObject *node);
void scan_gen_def(walk *w, PyObject *node, const char *name);
void scan_gen_assign(walk *w, PyObject *node);
void scan_gen_dict(walk *w, PyObject *node);
bool scan_gen_evaluates_args(PyObject *func);
bool scan_gen_typing_subscript(PyObject *value);
void scan_gen_resolve(walk *w);
/* scan-imports.c */
void scan_check_module_name(walk *w, PyObject *node, const char *dotted);
void scan_check_import(walk *w, PyObject *node);
void scan_check_import_from(walk *w, PyObject *node);
void scan_resolve_cands(walk *w);
PyObject *acs_scan_sensitive(const acs_profile *p);

/* Fast path: can this name (a str) matter to any rule? */
static inline bool maybe_sensitive(walk *w, PyObject *name)
{
        if (!w->sens || !PyUnicode_Check(name))
                return true;
        if (PyUnicode_GET_LENGTH(name) > 0 && PyUnicode_READ_CHAR(name, 0) == '_')
                return true; /* private and dunder names */
        if (!PyUnicode_IS_ASCII(name))
                return true;
        int r = PySet_Contains(w->sens, name);
        if (r < 0)
                PyErr_Clear();
        return r != 0;
}
