# expect: denied-attribute
import dataclasses
class M(type):
    def __instancecheck__(cls, obj):
        return True
@dataclasses.dataclass
class D(metaclass=M):
    gi_frame: object
def g():
    yield 1
match g():
    case D(fr):
        print(fr)
