# expect: denied-attribute
class A:
    x = 1
print(A.__dict__)
