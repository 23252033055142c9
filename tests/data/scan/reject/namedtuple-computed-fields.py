# expect: reflective-access
from collections import namedtuple
def build(fields):
    return namedtuple('T', fields)
