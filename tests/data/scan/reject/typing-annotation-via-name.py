# expect: denied-builtin
A = "eval('1')"
def f(x: A):
    return x
