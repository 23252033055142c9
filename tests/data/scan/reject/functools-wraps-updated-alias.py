# expect: reflective-access
from functools import wraps as w
def deco(fn, which):
    return w(fn, updated=which)
