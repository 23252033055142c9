import collections
class Box:
    count = 0
b = Box()
b.value = 3
Box.count += 1
c = collections.Counter('aab')
c.note = 'tagged'
json = {'k': 1}
print(b.value, Box.count, c.note, c['a'], json['k'])
del b.value
