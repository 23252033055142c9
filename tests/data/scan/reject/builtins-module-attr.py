# expect: denied-builtin
import builtins as b
b.eval('1')
