# SPDX-License-Identifier: LGPL-2.1-or-later
# A source of adversarial shapes for the scan (issue 18): what a hostile
# program would feed `acs-launch check` or MCP inspect_code_security to make
# the host spend memory and CPU. Every shape is valid Python.
#   python3 bench/adversarial.py [SHAPE] [BYTES]   (default: all shapes, 1000000 bytes)
# SHAPE: fold, alias, nesting, names, strings, shadow, or all (an equal share each).
import sys

def fold(i):
    # constant folding bombs: each would be >= 1 GiB if built
    return [f"x{i} = ('a'*64*64*64*64*64) + ''",
            f"getattr(o, ('b'*64*64*64*64*64) + '')",
            f"__import__('c'*64*64*64*64)",
            f"y{i} = '{{0.' + 'd'*64*64*64*64 + '__class__}}'",
            f"z{i} = '-'.join(['e'*64*64*64, 'f'*64*64*64, 'g'*64*64*64]) + str('h'*64*64*64)",
            f"w{i} = 's'*64*64*64 + 't'*64*64*64 + 'u'*64*64*64 + 'v'*64*64*64",
            f"getattr(o, f\"{{'i'*64*64*64*64}}{{'j'*64*64*64}}\")"]

def alias(i):
    # long chains of name copies, calls and module aliases: what the alias
    # resolution walks after the scan
    return [f"a{i + 1} = a{i}", "f()", f"m{i + 1} = m{i}", f"m{i}.x", f"import math as k{i}"]

def nesting(i):
    # as deep as CPython's parser allows, in several directions
    return ["x = " + "(" * 190 + "1" + ")" * 190,
            "y = " + "+".join(["'q'"] * 1500),
            "z = " + "-" * 1500 + "1",
            "l = " + "[" * 90 + "]" * 90,
            "f = " + "lambda: " * 150 + "0"]

def names(i):
    # very long identifiers and strings where findings take their names
    n = 20000
    return [f"import {'n' * n}{i}",
            f"getattr(o, '{'_' * n}{i}')",
            f"__import__('{'中' * (n // 3)}{i}')",
            f"o.{'p' * n}{i}",
            f"from r import {'_' * n}{i}"]

def strings(i):
    # strings that look like code: each is parsed and scanned again
    return [f"s{i} = 'type(x{i}); vars; getattr(o, \"a\")'",
            f"t{i} = '__import__(\"x{i}\")'",
            f"u{i} = '\"{{0.__class__}}\".format(x{i})'"]

def shadow(i):
    # reads of denied builtins inside many scopes: each asks whether a
    # local binding shadows it
    return [f"def g{i}(a, b):", f"    eval = a", f"    return eval(b) + vars() + exec",
            f"class C{i}:", f"    def __init__(self): self.__class__ = 1"]

SHAPES = {"fold": fold, "alias": alias, "nesting": nesting, "names": names, "strings": strings,
          "shadow": shadow}

def make(shapes, size):
    share = size // len(shapes)
    out = []
    for gen in shapes:
        part, i, n = [], 0, 0
        while True:
            lines = gen(i)
            add = sum(len(l.encode()) + 1 for l in lines)
            if n + add > share:
                break
            part += lines
            n += add
            i += 1
        out += part
    return "\n".join(out) + "\n"

if __name__ == "__main__":
    which = sys.argv[1] if len(sys.argv) > 1 else "all"
    size = int(sys.argv[2]) if len(sys.argv) > 2 else 1000000
    shapes = list(SHAPES.values()) if which == "all" else [SHAPES[which]]
    sys.stdout.write(make(shapes, size))
