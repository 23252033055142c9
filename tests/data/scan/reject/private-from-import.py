# expect: module-internals
from collections import _chain
