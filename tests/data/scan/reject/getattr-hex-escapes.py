# expect: denied-attribute
print(getattr(1, "\x5f\x5fclass\x5f\x5f"))
