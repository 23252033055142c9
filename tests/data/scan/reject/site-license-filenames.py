# expect: denied-builtin
license._Printer__filenames = ['/etc/passwd']
license()
