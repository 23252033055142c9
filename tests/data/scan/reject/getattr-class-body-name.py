# expect: reflective-access
# reads in a class body are never resolved (a namespace may be any mapping)
name = "real"
class A:
    value = getattr(1, name)
