# expect: forbidden-import
import os.path as p
print(p.exists('/etc/shadow'))
