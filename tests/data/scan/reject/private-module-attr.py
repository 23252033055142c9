# expect: module-internals
import random
random._os.system('id')
