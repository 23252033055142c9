# expect: denied-attribute
o = (1).__class__.__mro__[-1]
