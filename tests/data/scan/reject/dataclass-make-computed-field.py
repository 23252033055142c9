# expect: reflective-access
import dataclasses
name = ''.join(map(chr, [95, 95, 99, 108, 97, 115, 115, 95, 95]))
D = dataclasses.make_dataclass('D', [name])
