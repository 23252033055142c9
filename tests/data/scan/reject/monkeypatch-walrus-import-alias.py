# expect: module-write
import itertools as it
(lambda: setattr(it, 'count', None))()
