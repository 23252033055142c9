# expect: reflective-access
def render(template, ns):
    return template.format_map(ns)
