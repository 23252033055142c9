def f():
    """Return a value (computed with care)."""
    return 'call eval(x) only in trusted code; use open() never'
print(f.__doc__)
print(f())
