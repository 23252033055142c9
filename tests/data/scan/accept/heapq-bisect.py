import heapq, bisect
h = [5, 1, 8, 3]
heapq.heapify(h)
print([heapq.heappop(h) for _ in range(len(h))])
a = [1, 3, 5, 7]
print(bisect.bisect_left(a, 4))
