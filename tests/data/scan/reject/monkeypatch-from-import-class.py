# expect: module-write
from collections import OrderedDict
OrderedDict.popitem = lambda self, last=True: None
