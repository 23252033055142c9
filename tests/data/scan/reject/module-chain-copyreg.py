# expect: forbidden-import
import re
print(re.copyreg)
