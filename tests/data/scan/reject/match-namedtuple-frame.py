# expect: denied-attribute
import collections
class M(type):
    def __instancecheck__(cls, obj):
        return True
T = collections.namedtuple('T', 'f_back')
class F(T, metaclass=M):
    pass
def g():
    yield 1
match g():
    case F(x):
        print(x)
