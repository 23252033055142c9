# expect: reflective-access
name = ''.join(reversed('__ssalc__'))
print(hasattr(1, name))
