# expect: frame-walk
try:
    1 / 0
except Exception as e:
    t = e.with_traceback(None)
    print(t.tb_next)
