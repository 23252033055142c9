import re
m = re.findall(r'(\w+)@(\w+)\.com', 'a@b.com, c@d.com')
print(m)
print(re.sub(r'\d+', '#', 'a1b22c333'))
