# expect: denied-attribute
class A: pass
class B: pass
a = A()
setattr(a, "__class__", B)
