directions = {"N": (0, 1), "S": (0, -1)}
for dir in directions:
    print(dir, directions[dir])
for vars in [("a", 1)]:
    print(vars)
