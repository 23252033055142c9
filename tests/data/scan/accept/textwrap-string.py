import textwrap, string
print(textwrap.fill('the quick brown fox jumps over the lazy dog', 15))
print(string.ascii_lowercase[:5], string.Template('$x!').substitute(x='hi'))
