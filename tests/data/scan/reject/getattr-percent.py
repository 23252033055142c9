# expect: reflective-access
print(getattr(1, "%sclass%s" % ("__", "__")))
