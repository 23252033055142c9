import json
d = {'a': [1, 2, {'b': None}], 'c': 'x'}
s = json.dumps(d, sort_keys=True)
print(s)
print(json.loads(s) == d)
