# expect: denied-builtin
def f():
    return eval('1')
print(f())
def eval(x):
    return x
