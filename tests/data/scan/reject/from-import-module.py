# expect: forbidden-import
from re import copyreg
