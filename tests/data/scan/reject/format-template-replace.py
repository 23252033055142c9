# expect: reflective-access
t = '{0.CLS}'.replace('CLS', '__class__')
print(t.format(1))
