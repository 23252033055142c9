EXAMPLES = {
    'bad': "getattr(obj, '__class__').__mro__",
    'worse': "().__class__.__base__.__subclasses__()",
}
snippets = ["import os", "type(x).__dict__['y']", "f.__globals__"]
print(len(EXAMPLES), len(snippets), sorted(EXAMPLES))
