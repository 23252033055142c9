# expect: denied-attribute
def g():
    yield 1
it = g()
print(it.gi_frame.f_back)
