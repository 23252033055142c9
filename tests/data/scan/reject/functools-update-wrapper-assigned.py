# expect: denied-attribute
import functools
def f():
    pass
class W:
    pass
w = W()
functools.update_wrapper(w, f, assigned=('__globals__',), updated=())
