import collections.abc
from collections import abc, OrderedDict
from json import JSONDecodeError, dumps
print(isinstance({}, collections.abc.Mapping), abc.Sized, dumps([1]), JSONDecodeError.__name__)
