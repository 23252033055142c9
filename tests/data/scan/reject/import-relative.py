# expect: forbidden-import
from . import secrets_of_pkg
