# expect: module-write
import random
setattr(random, 'random', lambda: 0.5)
