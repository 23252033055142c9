# expect: forbidden-import
from os import *
system('id')
