# expect: forbidden-import
import json.tool as jt
print(jt)
