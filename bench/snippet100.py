class Vec:
    def __init__(self, x, y):
        self.x, self.y = x, y
    def __add__(self, o):
        return Vec(self.x + o.x, self.y + o.y)
    def __eq__(self, o):
        return (self.x, self.y) == (o.x, o.y)
    def __hash__(self):
        return hash((self.x, self.y))
    def __repr__(self):
        return f'Vec({self.x}, {self.y})'
    def __len__(self):
        return 2
    def __iter__(self):
        yield self.x
        yield self.y
v = Vec(1, 2) + Vec(3, 4)
print(v, len(v), list(v), v == Vec(4, 6))
def kind(v):
    match v:
        case {'type': 'point', 'x': x}:
            return f'point {x}'
        case [a, b]:
            return f'pair {a} {b}'
        case int(n) if n > 0:
            return 'positive'
        case _:
            return 'other'
print(kind({'type': 'point', 'x': 1}), kind([1, 2]), kind(5), kind('s'))
from collections import namedtuple


class Point:
    __slots__ = ("x", "y", "tags")

    def __init__(self, x, y=0, tags=None):
        self.x = x
        self.y = y
        self.tags = list(tags or [])
        self.tags.append("p")

    def __eq__(self, other):
        return isinstance(other, Point) and (self.x, self.y) == (other.x, other.y)

    def __repr__(self):
        return f"Point(x={self.x}, y={self.y}, tags={self.tags})"


Pair = namedtuple("Pair", ["left", "right"], defaults=[None])
p = Point(1, 2)
print(p, p == Point(1, 2), Pair(1), Pair(1, 2)._replace(right=3), Pair._fields)
import itertools, functools
print(list(itertools.permutations('abc', 2))[:3])
print(functools.reduce(lambda a, b: a * b, range(1, 6)))
@functools.lru_cache(maxsize=None)
def fib(n):
    return n if n < 2 else fib(n - 1) + fib(n - 2)
print(fib(30))
from collections import Counter, defaultdict, deque, namedtuple
c = Counter('mississippi')
print(c.most_common(2))
dd = defaultdict(list)
dd['a'].append(1)
print(dict(dd))
q = deque([1, 2, 3], maxlen=2)
print(list(q))
P = namedtuple('P', 'x y')
print(P(1, 2))
def primes(n):
    s = [True] * (n + 1)
    out = []
    for i in range(2, n + 1):
        if s[i]:
            out.append(i)
            for j in range(i * i, n + 1, i):
                s[j] = False
    return out
print(primes(50))
print('{0} + {1} = {2}'.format(1, 2, 3))
print('{name:>8}|{v:08.3f}'.format(name='a', v=2.5))
print('{0[1]} {d[k]}'.format([5, 6], d={'k': 'v'}))
print('%s-%d' % ('a', 3))
class Animal:
    def __init__(self, name):
        self.name = name
    def speak(self):
        return '...'
class Dog(Animal):
    def __init__(self, name):
        super().__init__(name)
    def speak(self):
        return 'woof'
for a in (Animal('x'), Dog('rex')):
    print(a.name, a.speak(), isinstance(a, Animal), type(a).__name__)
class Temp:
    __slots__ = ('_c',)
    def __init__(self, c):
        self._c = c
print('line 99')
print('line 100')
