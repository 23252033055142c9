# expect: module-write
import json
json.dumps = lambda *a, **k: 'patched'
