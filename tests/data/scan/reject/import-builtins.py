# expect: forbidden-import
import builtins
builtins.print(1)
