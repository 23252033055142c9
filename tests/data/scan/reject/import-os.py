# expect: forbidden-import
import os
os.system('id')
