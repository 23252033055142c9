# expect: reflective-access
def render(template, obj):
    return template.format(obj)
print(render('{0}', 1))
