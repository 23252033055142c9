# expect: reflective-access
import abc
class C(abc.ABC):
    @classmethod
    def __subclasshook__(cls, other):
        return True
def pick(names):
    C.__match_args__ = tuple(names)
pick(['x'])
match 1:
    case C(v):
        print(v)
