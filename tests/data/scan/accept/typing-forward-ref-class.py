from __future__ import annotations
import typing
class Node:
    def __init__(self, nxt: typing.Optional["Node"] = None):
        self.nxt = nxt
    def link(self, other: Node) -> Node:
        self.nxt = other
        return self
print(type(Node().link(Node()).nxt).__name__)
