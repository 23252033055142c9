# expect: reflective-access
# a tuple target is not followed: unknown
name, other = "real", "__class__"
name, other = other, name
print(getattr(1, name))
