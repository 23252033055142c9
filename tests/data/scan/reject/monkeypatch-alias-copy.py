# expect: module-write
import json as j
k = j
k.loads = print
