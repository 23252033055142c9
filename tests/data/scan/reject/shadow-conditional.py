# expect: denied-builtin
if False:
    def exec(s):
        pass
exec('import os')
