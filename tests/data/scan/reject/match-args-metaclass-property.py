# expect: reflective-access
class M(type):
    @property
    def __match_args__(cls):
        return (chr(95) * 2 + 'globals' + chr(95) * 2,)
class C(metaclass=M):
    pass
match print:
    case C(g):
        print(g)
