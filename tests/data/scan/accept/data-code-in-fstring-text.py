name = 'x'
print(f"the attack would be {name}.__class__.__subclasses__() here")
