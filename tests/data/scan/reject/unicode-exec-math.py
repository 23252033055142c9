# expect: denied-builtin
𝐞𝐱𝐞𝐜('print(1)')
