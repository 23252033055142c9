class Money:
    def __init__(self, amount, currency="EUR"):
        self.amount, self.currency = amount, currency
    def __repr__(self):
        return f"{self.__class__.__name__}({self.amount!r}, {self.currency!r})"
class Price(Money):
    def describe(self):
        return "%s in %s" % (self.__class__.__qualname__, self.__class__.__module__)
print(Money(3), Price(4), Price(5).describe())
