# expect: reflective-access
import dataclasses as dc
mk = dc.make_dataclass
def build(fields):
    return mk('D', fields)
