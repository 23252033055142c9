# expect: denied-builtin
print(open('/etc/passwd').read())
