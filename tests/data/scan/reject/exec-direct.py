# expect: denied-builtin
exec('import os')
