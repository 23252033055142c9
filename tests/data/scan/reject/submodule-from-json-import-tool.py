# expect: forbidden-import
from json import tool
print(tool)
