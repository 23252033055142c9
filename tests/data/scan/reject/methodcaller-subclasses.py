# expect: denied-attribute
import operator
print(operator.methodcaller('__subclasses__')(object))
