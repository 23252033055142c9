# expect: forbidden-import
try:
    import posix as p
except ImportError:
    p = None
