# expect: module-write
import heapq
for n in ('heappush', 'heappop'):
    setattr(heapq, n, None)
