# expect: module-write
import random
delattr(random, 'shuffle')
