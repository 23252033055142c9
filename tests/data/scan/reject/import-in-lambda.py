# expect: denied-builtin
f = lambda: __import__('os').getcwd()
print(f())
