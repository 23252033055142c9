# expect: denied-attribute
import math
math.__loader__.load_module('posix')
