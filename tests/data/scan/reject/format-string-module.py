# expect: denied-attribute
import string
print(string.Formatter().format('{0.__class__}', 1))
