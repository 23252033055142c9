# expect: reflective-access
import functools
opts = {'assigned': ('x',)}
def f():
    pass
functools.wraps(f, **opts)
