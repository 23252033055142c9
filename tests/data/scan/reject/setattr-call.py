# expect: denied-builtin
class A: pass
setattr(A, 'x', 1)
