# expect: denied-builtin
@__import__('functools').lru_cache
def f(x):
    return x
