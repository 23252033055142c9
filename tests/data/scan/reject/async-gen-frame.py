# expect: denied-attribute
async def a():
    yield 1
print(a().ag_frame)
