import itertools, functools
print(list(itertools.permutations('abc', 2))[:3])
print(functools.reduce(lambda a, b: a * b, range(1, 6)))
@functools.lru_cache(maxsize=None)
def fib(n):
    return n if n < 2 else fib(n - 1) + fib(n - 2)
print(fib(30))
