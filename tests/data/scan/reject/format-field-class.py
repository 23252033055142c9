# expect: denied-attribute
print('{0.__class__.__base__}'.format(1))
