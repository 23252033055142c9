# expect: denied-attribute
from functools import update_wrapper
def f():
    pass
class W:
    pass
update_wrapper(W(), f, ('__name__', '__code__'), ())
