# expect: denied-attribute
import functools
def gen():
    yield 1
class W:
    pass
functools.update_wrapper(W(), gen(), ['gi_frame'], [])
