# expect: syntax-error
print 'hello'
