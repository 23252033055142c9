# expect: reflective-access
class C:
    pass
n = str(len('abc'))
setattr(C, '__match_args__', (n,))
