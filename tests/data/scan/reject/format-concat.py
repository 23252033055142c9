# expect: denied-attribute
t = '{0._' + '_class__}'
print(t.format(1))
