class MyError(Exception):
    pass
try:
    raise MyError('boom')
except MyError as e:
    print('caught', e)
finally:
    print('done')
