def safe():
    """Never do this: __import__('os').system('rm -rf /') or eval(s)."""
    return 1
print(safe(), safe.__doc__.count('('))
