# expect: reflective-access
t = ''.join(map(chr, [123, 48, 46, 95, 95, 99, 108, 97, 115, 115, 95, 95, 125]))
print(t.format(1))
