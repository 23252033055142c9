# expect: denied-attribute
class M(type):
    def __instancecheck__(cls, obj):
        return True
class G(metaclass=M):
    __match_args__ = ['gi_frame']
def gen():
    yield 1
match gen():
    case G(fr):
        print(fr)
