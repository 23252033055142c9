# expect: denied-attribute
print(print.__self__)
