# expect: reflective-access
parts = ['__', 'glob' + 'als', '__']
class C:
    __match_args__ = (''.join(p for p in parts),)
match C():
    case C(g):
        print(g)
