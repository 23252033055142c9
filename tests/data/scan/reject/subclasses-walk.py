# expect: denied-attribute
for c in object.__subclasses__():
    print(c)
