# expect: denied-attribute
print(getattr(1, "\uff3f\uff3fclass\uff3f\uff3f"))
