# expect: denied-attribute
import statistics
print(statistics.sys.modules)
