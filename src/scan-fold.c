/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * String folding: the value of a constant string expression -- constants,
 * `+`, `*` by a constant integer, f-strings without format specs or
 * conversions, str(), chr(), sep.join() of a literal list or tuple -- which
 * the rules need wherever code computes a name.
 *
 * Bounded (issue 18): a value is built only once its length is known to be
 * at most FOLD_MAX characters, the size up to which CPython's own compiler
 * folds constants. Lengths are computed without building anything and kept
 * per node, so a 30-byte expression worth a gigabyte costs nothing and a long
 * chain of `+` is measured once. A longer value is unknown to the rules, as
 * if it were computed at run time: getattr with it is refused as a computed
 * name, __import__ of it as "<computed>". The exception is a str.format
 * template: a concatenation too long to build is still read as a template,
 * part after part (scan_fold_stream). All the string work of one scan --
 * characters built, normalised or streamed -- counts against FOLD_WORK_MAX;
 * past it folding stops and the scan is refused with rule scan-limit.
 */
#include <limits.h>
#include <string.h>

#include "scan-walk-int.h"

enum { LEN_UNKNOWN = -1, LEN_LONG = -2 };

/* Count n characters of string work; false once the budget is spent. */
static bool charge(walk *w, Py_ssize_t n)
{
        scan_budget *b = w->budget;
        if (b->over)
                return false;
        b->work += n > 0 ? (size_t)n : 0;
        if (b->work > FOLD_WORK_MAX)
                b->over = true;
        return !b->over;
}

static Py_ssize_t len_plus(Py_ssize_t a, Py_ssize_t b)
{
        if (a == LEN_UNKNOWN || b == LEN_UNKNOWN)
                return LEN_UNKNOWN;
        if (a == LEN_LONG || b == LEN_LONG || a + b > FOLD_MAX)
                return LEN_LONG;
        return a + b;
}

/* n copies of a value of length len (Python: a count <= 0 gives ''). */
static Py_ssize_t len_times(Py_ssize_t len, long long n)
{
        if (len == LEN_UNKNOWN)
                return LEN_UNKNOWN;
        if (n <= 0 || len == 0)
                return 0;
        if (len == LEN_LONG || n > FOLD_MAX / len)
                return LEN_LONG;
        return len * (Py_ssize_t)n;
}

/* The count of `x * N` when N is an integer constant (saturated to the long long range). */
static bool repeat_count(PyObject *node, long long *ret)
{
        PyObject *v = is(node, T_Constant) ? scan_get(node, S_value) : NULL;
        bool ok = v && PyLong_Check(v);
        if (ok) {
                int overflow = 0;
                long long k = PyLong_AsLongLongAndOverflow(v, &overflow);
                *ret = overflow > 0 ? LLONG_MAX : overflow < 0 ? LLONG_MIN : k;
        }
        Py_XDECREF(v);
        PyErr_Clear();
        return ok;
}

/* chr(N) with a constant N: its code point, or -1. */
static long chr_arg(PyObject *node)
{
        PyObject *v = is(node, T_Constant) ? scan_get(node, S_value) : NULL;
        long c = v && PyLong_Check(v) ? PyLong_AsLong(v) : -1;
        Py_XDECREF(v);
        PyErr_Clear();
        return c >= 0 && c <= 0x10ffff ? c : -1;
}

/*
 * The parts of a foldable call: str(X), chr(N) or SEP.join([..]), with one
 * positional argument and no keywords. Returns the function (borrowed from
 * the node's fields, which the node keeps) and sets *arg.
 */
enum { CALL_NONE, CALL_STR, CALL_CHR, CALL_JOIN };
static int call_kind(PyObject *node, PyObject **arg, PyObject **sep, PyObject **elts)
{
        PyObject *func = scan_get(node, S_func), *args = scan_get(node, S_args),
                 *kw = scan_get(node, S_keywords);
        int kind = CALL_NONE;
        if (!func || !args || !PyList_Check(args) || PyList_GET_SIZE(args) != 1 ||
            (kw && (!PyList_Check(kw) || PyList_GET_SIZE(kw) > 0)))
                goto out;
        *arg = PyList_GET_ITEM(args, 0);
        const char *fn = scan_name_id(func);
        if (fn && strcmp(fn, "str") == 0) {
                kind = CALL_STR;
        } else if (fn && strcmp(fn, "chr") == 0) {
                kind = CALL_CHR;
        } else if (is(func, T_Attribute) && (is(*arg, T_List) || is(*arg, T_Tuple))) {
                const char *attr = scan_get_str(func, S_attr);
                PyObject *e = scan_get(*arg, S_elts);
                if (attr && strcmp(attr, "join") == 0 && e && PyList_Check(e)) {
                        kind = CALL_JOIN;
                        *sep = scan_get(func, S_value); /* the tree keeps it alive */
                        Py_XDECREF(*sep);
                        *elts = e;
                }
                Py_XDECREF(e);
        }
out:
        Py_XDECREF(func);
        Py_XDECREF(args);
        Py_XDECREF(kw);
        PyErr_Clear();
        return kind;
}

static bool starred(PyObject *list)
{
        for (Py_ssize_t i = 0; i < PyList_GET_SIZE(list); i++)
                if (is(PyList_GET_ITEM(list, i), T_Starred))
                        return true;
        return false;
}

static Py_ssize_t len_node(walk *w, PyObject *node)
{
        Py_ssize_t n = LEN_UNKNOWN;
        if (is(node, T_BinOp)) {
                PyObject *op = scan_get(node, S_op), *l = scan_get(node, S_left),
                         *r = scan_get(node, S_right);
                long long k;
                if (is(op, T_Add)) {
                        n = scan_fold_len(w, l);
                        if (n != LEN_UNKNOWN)
                                n = len_plus(n, scan_fold_len(w, r));
                } else if (is(op, T_Mult) && repeat_count(r, &k)) {
                        n = len_times(scan_fold_len(w, l), k);
                }
                Py_XDECREF(op);
                Py_XDECREF(l);
                Py_XDECREF(r);
        } else if (is(node, T_JoinedStr)) {
                PyObject *vals = scan_get(node, S_values);
                n = vals && PyList_Check(vals) ? 0 : LEN_UNKNOWN;
                for (Py_ssize_t i = 0; n != LEN_UNKNOWN && i < PyList_GET_SIZE(vals); i++)
                        n = len_plus(n, scan_fold_len(w, PyList_GET_ITEM(vals, i)));
                Py_XDECREF(vals);
        } else if (is(node, T_FormattedValue)) {
                PyObject *spec = scan_get(node, S_format_spec), *v = scan_get(node, S_value);
                if (spec == Py_None && scan_get_int(node, S_conversion) == -1)
                        n = scan_fold_len(w, v);
                Py_XDECREF(spec);
                Py_XDECREF(v);
        } else if (is(node, T_Call)) {
                PyObject *arg = NULL, *sep = NULL, *elts = NULL;
                switch (call_kind(node, &arg, &sep, &elts)) {
                case CALL_STR: n = scan_fold_len(w, arg); break;
                case CALL_CHR: n = chr_arg(arg) >= 0 ? 1 : LEN_UNKNOWN; break;
                case CALL_JOIN:
                        if (starred(elts))
                                break;
                        n = len_times(scan_fold_len(w, sep), PyList_GET_SIZE(elts) - 1);
                        for (Py_ssize_t i = 0; n != LEN_UNKNOWN && i < PyList_GET_SIZE(elts); i++)
                                n = len_plus(n, scan_fold_len(w, PyList_GET_ITEM(elts, i)));
                        break;
                }
        }
        PyErr_Clear();
        return n;
}

/*
 * The length of node's folded value: 0..FOLD_MAX, LEN_LONG (every part is
 * known but the whole, or a part of it, is longer) or LEN_UNKNOWN. Kept per
 * node: every node is measured once per scan however often it is asked.
 */
Py_ssize_t scan_fold_len(walk *w, PyObject *node)
{
        if (!node)
                return LEN_UNKNOWN;
        if (is(node, T_Constant)) {
                PyObject *v = scan_get(node, S_value);
                Py_ssize_t n = v && PyUnicode_Check(v) ? PyUnicode_GET_LENGTH(v) : LEN_UNKNOWN;
                Py_XDECREF(v);
                return n > FOLD_MAX ? LEN_LONG : n;
        }
        if (!is(node, T_BinOp) && !is(node, T_JoinedStr) && !is(node, T_FormattedValue) && !is(node, T_Call))
                return LEN_UNKNOWN;
        if (!w->fold_memo && !(w->fold_memo = PyDict_New())) {
                PyErr_Clear();
                return LEN_UNKNOWN;
        }
        PyObject *m = PyDict_GetItemWithError(w->fold_memo, node);
        if (m)
                return PyLong_AsSsize_t(m);
        PyErr_Clear();
        Py_ssize_t n = len_node(w, node);
        PyObject *v = PyLong_FromSsize_t(n);
        if (!v || PyDict_SetItem(w->fold_memo, node, v) < 0)
                PyErr_Clear();
        Py_XDECREF(v);
        return n;
}

static PyObject *build(walk *w, PyObject *node);

/* The parts of a chain of +, in order, appended to parts. */
static bool add_parts(walk *w, PyObject *node, PyObject *parts)
{
        PyObject *op = is(node, T_BinOp) ? scan_get(node, S_op) : NULL;
        bool ok;
        if (is(op, T_Add)) {
                PyObject *l = scan_get(node, S_left), *r = scan_get(node, S_right);
                ok = l && r && add_parts(w, l, parts) && add_parts(w, r, parts);
                Py_XDECREF(l);
                Py_XDECREF(r);
        } else {
                PyObject *s = build(w, node);
                ok = s && PyList_Append(parts, s) == 0;
                Py_XDECREF(s);
        }
        Py_XDECREF(op);
        return ok;
}

/* The values of the nodes in list (chains of + flattened), joined into one string. */
static PyObject *build_concat(walk *w, PyObject *list)
{
        PyObject *parts = PyList_New(0), *empty = PyUnicode_FromStringAndSize(NULL, 0), *r = NULL;
        bool ok = parts && empty;
        for (Py_ssize_t i = 0; ok && i < PyList_GET_SIZE(list); i++)
                ok = add_parts(w, PyList_GET_ITEM(list, i), parts);
        if (ok)
                r = PyUnicode_Join(empty, parts);
        Py_XDECREF(empty);
        Py_XDECREF(parts);
        if (r && !charge(w, PyUnicode_GET_LENGTH(r)))
                Py_CLEAR(r);
        return r;
}

/*
 * The value of node, which scan_fold_len measured at 0..FOLD_MAX (so no part of
 * it is longer). A chain of + becomes one join: building it is linear in its
 * length, not quadratic in its number of parts. New reference or NULL.
 */
static PyObject *build(walk *w, PyObject *node)
{
        PyObject *r = NULL;
        if (w->budget->over)
                return NULL;
        if (is(node, T_Constant))
                return scan_get(node, S_value);
        if (is(node, T_BinOp)) {
                PyObject *op = scan_get(node, S_op), *l = scan_get(node, S_left),
                         *rt = scan_get(node, S_right);
                long long k;
                if (is(op, T_Add)) {
                        PyObject *one = PyList_New(1);
                        if (one) {
                                Py_INCREF(node);
                                PyList_SET_ITEM(one, 0, node);
                                r = build_concat(w, one);
                        }
                        Py_XDECREF(one);
                } else if (is(op, T_Mult) && repeat_count(rt, &k)) {
                        PyObject *s = k > 0 ? build(w, l) : NULL;
                        r = k > 0 ? (s ? PySequence_Repeat(s, (Py_ssize_t)k) : NULL)
                                  : PyUnicode_FromString("");
                        Py_XDECREF(s);
                        if (r && !charge(w, PyUnicode_GET_LENGTH(r)))
                                Py_CLEAR(r);
                }
                Py_XDECREF(op);
                Py_XDECREF(l);
                Py_XDECREF(rt);
        } else if (is(node, T_JoinedStr)) {
                PyObject *vals = scan_get(node, S_values);
                if (vals && PyList_Check(vals))
                        r = build_concat(w, vals);
                Py_XDECREF(vals);
        } else if (is(node, T_FormattedValue)) {
                PyObject *v = scan_get(node, S_value);
                r = v ? build(w, v) : NULL;
                Py_XDECREF(v);
        } else if (is(node, T_Call)) {
                PyObject *arg = NULL, *sep = NULL, *elts = NULL, *s;
                switch (call_kind(node, &arg, &sep, &elts)) {
                case CALL_STR: r = build(w, arg); break;
                case CALL_CHR: r = PyUnicode_FromOrdinal((int)chr_arg(arg)); break;
                case CALL_JOIN:
                        if ((s = build(w, sep))) {
                                /* each element is one part: sep goes between elements, not inside a + chain
                                 */
                                PyObject *parts = PyList_New(0);
                                bool ok = parts != NULL;
                                for (Py_ssize_t i = 0; ok && i < PyList_GET_SIZE(elts); i++) {
                                        PyObject *e = build(w, PyList_GET_ITEM(elts, i));
                                        ok = e && PyList_Append(parts, e) == 0;
                                        Py_XDECREF(e);
                                }
                                r = ok ? PyUnicode_Join(s, parts) : NULL;
                                Py_XDECREF(parts);
                                if (r && !charge(w, PyUnicode_GET_LENGTH(r)))
                                        Py_CLEAR(r);
                        }
                        Py_XDECREF(s);
                        break;
                }
        }
        if (r && !PyUnicode_Check(r))
                Py_CLEAR(r);
        PyErr_Clear();
        return r;
}

/* The raw value of node when it is known and at most FOLD_MAX long. */
static PyObject *fold_raw(walk *w, PyObject *node)
{
        Py_ssize_t n = node && !w->budget->over ? scan_fold_len(w, node) : LEN_UNKNOWN;
        return n >= 0 ? build(w, node) : NULL;
}

static PyObject *nfkc(walk *w, PyObject *s)
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
        /* NFKC can lengthen a string (up to 18 times): count what it made */
        if (!PyUnicode_Check(r) || !charge(w, PyUnicode_GET_LENGTH(r)))
                Py_CLEAR(r);
        return r;
}

PyObject *scan_fold(walk *w, PyObject *node)
{
        return nfkc(w, fold_raw(w, node));
}

/* The known leading (prefix) or trailing (!prefix) text of a string expression. */
PyObject *scan_fold_edge(walk *w, PyObject *node, bool prefix, int budget)
{
        PyObject *whole = fold_raw(w, node);
        if (whole || budget <= 0)
                return whole;
        PyObject *r = NULL;
        if (is(node, T_BinOp)) {
                PyObject *op = scan_get(node, S_op), *side = scan_get(node, prefix ? S_left : S_right);
                if (is(op, T_Add))
                        r = scan_fold_edge(w, side, prefix, budget - 1);
                Py_XDECREF(op);
                Py_XDECREF(side);
        } else if (is(node, T_JoinedStr)) {
                PyObject *vals = scan_get(node, S_values);
                Py_ssize_t n = vals && PyList_Check(vals) ? PyList_GET_SIZE(vals) : 0;
                if (n > 0)
                        r = scan_fold_edge(w, PyList_GET_ITEM(vals, prefix ? 0 : n - 1), prefix, budget - 1);
                Py_XDECREF(vals);
        }
        PyErr_Clear();
        return r;
}

/* ---- a template too long to build, fed to the format parser in parts ---- */

static bool feed_str(walk *w, PyObject *s, acs_fmt_stream *f)
{
        Py_ssize_t len;
        const char *c = s && PyUnicode_Check(s) ? PyUnicode_AsUTF8AndSize(s, &len) : NULL;
        if (!c) {
                PyErr_Clear();
                return false;
        }
        if (!charge(w, len))
                return false;
        acs_fmt_feed(f, c, (size_t)len);
        return true;
}

/*
 * Feed node k times. The parser is deterministic: once a repetition leaves
 * it in the state it started from (or in the state of two repetitions ago),
 * the remaining ones would only repeat what was already seen; skip them and
 * keep the state the last one would leave.
 */
static bool stream_repeat(walk *w, PyObject *node, long long k, acs_fmt_stream *f)
{
        acs_fmt_stream prev = *f, prev2 = *f;
        bool have2 = false;
        for (long long i = 0; i < k; i++) {
                if (!scan_fold_stream(w, node, f))
                        return false;
                if (acs_fmt_same(f, &prev))
                        return true;
                if (have2 && acs_fmt_same(f, &prev2)) {
                        if ((k - (i + 1)) % 2 == 1)
                                *f = prev;
                        return true;
                }
                prev2 = prev;
                have2 = true;
                prev = *f;
        }
        return true;
}

static bool stream_list(walk *w, PyObject *list, PyObject *sep, acs_fmt_stream *f)
{
        for (Py_ssize_t i = 0; i < PyList_GET_SIZE(list); i++)
                if ((i > 0 && sep && !scan_fold_stream(w, sep, f)) ||
                    !scan_fold_stream(w, PyList_GET_ITEM(list, i), f))
                        return false;
        return true;
}

bool scan_fold_stream(walk *w, PyObject *node, acs_fmt_stream *f)
{
        Py_ssize_t n = scan_fold_len(w, node);
        bool ok = false;
        if (n == LEN_UNKNOWN || w->budget->over)
                return false;
        if (n >= 0 || is(node, T_Constant)) {
                PyObject *s = n >= 0 ? build(w, node) : scan_get(node, S_value);
                ok = feed_str(w, s, f);
                Py_XDECREF(s);
                return ok;
        }
        if (is(node, T_BinOp)) {
                PyObject *op = scan_get(node, S_op), *l = scan_get(node, S_left),
                         *r = scan_get(node, S_right);
                long long k;
                if (is(op, T_Add))
                        ok = scan_fold_stream(w, l, f) && scan_fold_stream(w, r, f);
                else if (is(op, T_Mult) && repeat_count(r, &k))
                        ok = stream_repeat(w, l, k, f);
                Py_XDECREF(op);
                Py_XDECREF(l);
                Py_XDECREF(r);
        } else if (is(node, T_JoinedStr)) {
                PyObject *vals = scan_get(node, S_values);
                ok = vals && PyList_Check(vals) && stream_list(w, vals, NULL, f);
                Py_XDECREF(vals);
        } else if (is(node, T_FormattedValue)) {
                PyObject *v = scan_get(node, S_value);
                ok = v && scan_fold_stream(w, v, f);
                Py_XDECREF(v);
        } else if (is(node, T_Call)) {
                PyObject *arg = NULL, *sep = NULL, *elts = NULL;
                switch (call_kind(node, &arg, &sep, &elts)) {
                case CALL_STR: ok = scan_fold_stream(w, arg, f); break;
                case CALL_JOIN: ok = stream_list(w, elts, sep, f); break;
                }
        }
        PyErr_Clear();
        return ok;
}
