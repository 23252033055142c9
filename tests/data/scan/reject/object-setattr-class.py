# expect: denied-attribute
class A: pass
class B: pass
a = A()
object.__setattr__(a, '__class__', B)
