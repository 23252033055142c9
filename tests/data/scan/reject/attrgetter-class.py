# expect: denied-attribute
import operator
print(operator.attrgetter('__class__.__mro__')(1))
