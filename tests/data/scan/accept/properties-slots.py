class Temp:
    __slots__ = ('_c',)
    def __init__(self, c):
        self._c = c
    @property
    def f(self):
        return self._c * 9 / 5 + 32
    @staticmethod
    def unit():
        return 'F'
    @classmethod
    def zero(cls):
        return cls(0)
t = Temp.zero()
print(t.f, Temp.unit(), t._c)
