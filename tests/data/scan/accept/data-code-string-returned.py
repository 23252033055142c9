def example():
    return "import subprocess; subprocess.run(['id'])"
s = example()
print(s.split(';')[0])
