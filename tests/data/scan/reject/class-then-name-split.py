# expect: denied-attribute
n = ().__class__
print(n.__name__)
