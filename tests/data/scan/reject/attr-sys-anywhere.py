# expect: denied-attribute
import enum
print(enum.sys.modules)
