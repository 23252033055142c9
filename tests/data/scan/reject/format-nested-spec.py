# expect: denied-attribute
print("{0:{1.__class__}}".format(1, 2))
