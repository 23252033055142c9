# expect: denied-attribute
# a walrus binding of a folded constant is still the constant
if (name := "__cla" + "ss__"):
    print(getattr(1, name))
