# expect: denied-attribute
match 1:
    case int(__class__=k):
        print(k)
