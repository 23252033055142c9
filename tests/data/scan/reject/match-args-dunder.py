# expect: denied-attribute
class C:
    __match_args__ = ('__globals__',)
def f():
    pass
match f:
    case C(g):
        print(g)
