import contextlib
import graphlib
import pprint
import time

@contextlib.contextmanager
def section(name):
    print("enter", name)
    yield name.upper()
    print("leave", name)

with section("calc") as tag:
    ts = graphlib.TopologicalSorter({"b": {"a"}, "c": {"b"}})
    print(tag, list(ts.static_order()))
pprint.pprint({"k": list(range(3)), "a": {"nested": True}})
t0 = time.perf_counter()
print(time.perf_counter() >= t0)
