# expect: reflective-access
class A:
    def m(self):
        return super().__thisclass__
print(A().m())
