# expect: denied-builtin
mods = [__import__(m) for m in ['os', 'sys']]
