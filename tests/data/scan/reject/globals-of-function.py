# expect: denied-attribute
def f():
    pass
print(f.__globals__['__builtins__'])
