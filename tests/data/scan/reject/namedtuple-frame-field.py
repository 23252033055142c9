# expect: denied-attribute
import collections
T = collections.namedtuple('T', ['x', 'tb_frame'])
