# expect: denied-builtin
def f():
    return locals()
