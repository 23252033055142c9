print('{0} + {1} = {2}'.format(1, 2, 3))
print('{name:>8}|{v:08.3f}'.format(name='a', v=2.5))
print('{0[1]} {d[k]}'.format([5, 6], d={'k': 'v'}))
print('%s-%d' % ('a', 3))
