# expect: denied-attribute
async def c():
    pass
co = c()
print(co.cr_frame)
co.close()
