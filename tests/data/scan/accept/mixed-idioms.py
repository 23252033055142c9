import collections.abc
import functools
from enum import Enum
from collections import namedtuple


class Color(Enum):
    RED = 1
    GREEN = 2

    @classmethod
    def _missing_(cls, value):
        return cls.RED


P = namedtuple("P", "x y", defaults=[0])


@functools.total_ordering
class Ver:
    def __init__(self, *parts):
        self.parts = parts

    def __eq__(self, other):
        return self.parts == other.parts

    def __lt__(self, other):
        return self.parts < other.parts

    def __str__(self):
        return ".".join(map(str, self.parts))

    __repr__ = __str__

    def __init_subclass__(cls, **kw):
        super().__init_subclass__(**kw)


class Item:
    def __init__(self, name, qty=1):
        self.name, self.qty = name, qty

    def __repr__(self):
        return f"Item({self.name!r}, {self.qty})"


def describe(f):
    return f"{f.__name__}: {f.__doc__} {f.__qualname__} {f.__module__} {f.__defaults__}"


def g(a=1):
    """doc"""
    return a


items = [Item("a", 3), Item("b", 1)]
print(sorted(items, key=lambda i: i.qty))
print(isinstance({}, collections.abc.Mapping), Color(5), P(1))
print(Ver(1, 2) < Ver(1, 3), repr(Ver(2, 0)), describe(g))
try:
    int("x")
except (ValueError, TypeError) as e:
    print(type(e).__name__, e.args)
print("{:,} {:.3f} %(a)s".format(1234567, 3.14159) % {"a": "b"})
print("type(x) is", type(3).__name__, (255).to_bytes(2, "big"))
total = 0
def add(n):
    global total
    total += n
add(3)
print(total, (3).__add__(4), [1, 2].__len__())
