# expect: denied-attribute
class A: pass
print(A().__class__.__name__, A().__class__.__base__)
