cmd = 'ls'
if cmd == "exec(open('x').read())":
    print('same')
else:
    print('different')
print("vars()" in ['dir()', 'vars()'])
