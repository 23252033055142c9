# expect: denied-attribute
import string
obj, _ = string.Formatter().get_field("0.__class__.__base__", (1,), {})
print(obj)
