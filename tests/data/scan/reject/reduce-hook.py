# expect: denied-builtin
class K:
    def __reduce__(self):
        return (exec, ("import os",))
import copy
copy.deepcopy(K())
