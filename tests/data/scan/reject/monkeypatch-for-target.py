# expect: module-write
import string
for string.digits in ['x']:
    pass
