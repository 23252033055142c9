class Animal:
    def __init__(self, name):
        self.name = name
    def speak(self):
        return '...'
class Dog(Animal):
    def __init__(self, name):
        super().__init__(name)
    def speak(self):
        return 'woof'
for a in (Animal('x'), Dog('rex')):
    print(a.name, a.speak(), isinstance(a, Animal), type(a).__name__)
