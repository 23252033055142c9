# expect: reflective-access
def get(o, k):
    return getattr(o, k)
print(get(1, "__class__"))
