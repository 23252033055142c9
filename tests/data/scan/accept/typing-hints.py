from typing import List, Dict, Optional
def total(xs: List[int], w: Optional[Dict[str, int]] = None) -> int:
    return sum(xs) + sum((w or {}).values())
print(total([1, 2], {'a': 3}))
