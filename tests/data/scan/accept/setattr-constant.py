class A: pass
a = A()
setattr(a, "x", 1)
print(getattr(a, "x"), getattr(a, "y", "default"), hasattr(a, "x"))
delattr(a, "x")
print(hasattr(a, "x"))
