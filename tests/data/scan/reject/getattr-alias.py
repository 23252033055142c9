# expect: reflective-access
g = getattr
print(g(1, "__class__"))
