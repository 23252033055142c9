def total(xs: list[int], w: dict[str, int] | None = None) -> int:
    return sum(xs) + sum((w or {}).values())


def first(items: "list[str]") -> str | None:
    return items[0] if items else None


print(total([1, 2], {"a": 3}), first(["x"]), total.__annotations__["return"])
