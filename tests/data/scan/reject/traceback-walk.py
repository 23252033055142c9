# expect: denied-attribute
try:
    1 / 0
except Exception as e:
    print(e.__traceback__.tb_frame.f_globals)
