import collections
import dataclasses
P = dataclasses.make_dataclass('P', ['x', ('y', int, dataclasses.field(default=0))])
T = collections.namedtuple('T', 'a b')
print(P(1), T(1, 2))
