rules = [("eval(", "denied"), ("__import__(", "denied"), ("open(", "ok")]
table = {k: v for k, v in rules}
print(table["eval("], len(table))
assert "compile('x', 'f', 'exec')" != "x"
