# expect: reflective-access
t = '{0._' + chr(95) * int('1') + 'class__}'
print(str.format(t, 1))
