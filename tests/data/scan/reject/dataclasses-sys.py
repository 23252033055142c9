# expect: denied-attribute
import dataclasses
print(dataclasses.sys)
