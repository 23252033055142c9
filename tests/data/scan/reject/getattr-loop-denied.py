# expect: denied-attribute
# a loop over known strings is judged string by string: one is denied
for name in ("real", "__class__"):
    print(getattr(1, name))
