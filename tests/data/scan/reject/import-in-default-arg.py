# expect: denied-builtin
def f(m=__import__('os')):
    return m.getcwd()
