# expect: denied-builtin
name = 'o' + 's'
m = __import__(name)
