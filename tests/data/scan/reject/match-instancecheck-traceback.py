# expect: denied-attribute
class M(type):
    def __instancecheck__(cls, obj):
        return True
class TB(metaclass=M):
    __match_args__ = ('tb_frame',)
try:
    1 / 0
except ZeroDivisionError as e:
    match e.with_traceback(None):
        case TB(fr):
            print(fr)
