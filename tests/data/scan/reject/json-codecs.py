# expect: forbidden-import
import json
print(json.codecs.open("/etc/passwd").read())
