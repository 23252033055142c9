# expect: reflective-access
class M(type):
    def __instancecheck__(cls, obj):
        return True
def make(names):
    return M('C', (), {'__match_args__': tuple(names)})
C = make(['x'])
match 1:
    case C(v):
        print(v)
