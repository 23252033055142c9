# expect: reflective-access
# the same name is also a parameter: it can hold anything
name = "real"
def get(obj, name):
    return getattr(obj, name)
print(get(1, name))
