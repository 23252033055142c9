# expect: reflective-access
# a metaclass's __prepare__ makes a class body's namespace any mapping: the
# first iterable of a comprehension there is read through it, so a module
# that defines __prepare__ never has its names resolved
class Ns(dict):
    def __missing__(self, key):
        if key == "name":
            return "__class__"
        raise KeyError(key)
class Meta(type):
    @classmethod
    def __prepare__(mcs, cls_name, bases):
        return Ns()
name = "real"
class A(metaclass=Meta):
    x = [y for y in [getattr(1, name)]]
print(A.x)
