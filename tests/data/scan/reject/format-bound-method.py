# expect: reflective-access
t = str(b'{0.__class__}', 'ascii')
fmt = t.format
print(fmt(1))
