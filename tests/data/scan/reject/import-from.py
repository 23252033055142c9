# expect: forbidden-import
from subprocess import run
run(['id'])
