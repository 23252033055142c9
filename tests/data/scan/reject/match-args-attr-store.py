# expect: reflective-access
class C:
    pass
names = '-'.join(['tb_', 'frame']).replace('-', '')
C.__match_args__ = (names,)
