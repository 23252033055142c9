# expect: reflective-access
# augmented assignment makes the value unknown
name = "__cla"
name += "ss__"
print(getattr(1, name))
