# expect: denied-builtin
breakpoint()
