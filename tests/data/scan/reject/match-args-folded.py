# expect: denied-attribute
class C:
    __match_args__ = ('__glo' + 'bals__',)
match C():
    case C(g):
        print(g)
