print("__import__('os').system('id')")
print('eval(input())')
