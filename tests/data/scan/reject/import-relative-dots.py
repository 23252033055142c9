# expect: forbidden-import
from ..util import helper
