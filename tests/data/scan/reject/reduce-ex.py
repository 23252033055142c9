# expect: denied-attribute
print((1).__reduce_ex__(2))
