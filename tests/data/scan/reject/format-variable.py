# expect: denied-attribute
t = '{x.__init__.__globals__}'
print(t.format(x=1))
