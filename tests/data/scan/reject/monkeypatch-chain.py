# expect: module-write
import json
json.decoder.scanstring = None
