# expect: reflective-access
t = bytes([123, 102, 46, 95, 95, 103, 108, 111, 98, 97, 108, 115, 95, 95, 125]).decode()
def f():
    pass
print(t.format_map({'f': f}))
