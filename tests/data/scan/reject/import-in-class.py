# expect: forbidden-import
class K:
    import ctypes
