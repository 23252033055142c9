# expect: forbidden-import
def f():
    from json import decoder, tool
    return tool
