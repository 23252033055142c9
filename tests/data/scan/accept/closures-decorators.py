import functools
def twice(f):
    @functools.wraps(f)
    def w(*a, **k):
        return f(f(*a, **k))
    return w
@twice
def inc(x):
    return x + 1
print(inc(1), inc.__name__, inc.__doc__)
