# expect: denied-attribute
print((1).__class__)
