# expect: forbidden-import
def outer():
    def inner():
        from pathlib import Path
        return Path('/').iterdir()
    return inner
