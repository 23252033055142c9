# expect: reflective-access
t = '{0}'.upper().lower()
print(getattr(t, 'format')(1))
