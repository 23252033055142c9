# expect: reflective-access
print(dir())
