# expect: reflective-access
import collections
class M(type):
    def __instancecheck__(cls, obj):
        return True
def make(fields):
    return collections.namedtuple('T', fields)
class F(make('x'), metaclass=M):
    pass
match 1:
    case F(x):
        print(x)
