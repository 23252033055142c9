# expect: denied-attribute
def f():
    pass
print(f.__code__.co_consts)
