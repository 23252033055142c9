# expect: reflective-access
import functools
names = tuple(s.strip() for s in ' __globals__ '.split())
def f():
    pass
@functools.wraps(f, assigned=names)
def g():
    pass
