import functools
def deco(fn):
    @functools.wraps(fn)
    def inner(*a):
        return fn(*a) * 2
    return inner
@deco
def f(x):
    """Double x."""
    return x
def g():
    pass
h = functools.update_wrapper(lambda: 1, g, assigned=('__name__', '__doc__'), updated=())
print(f(2), f.__name__, f.__doc__, h.__name__)
