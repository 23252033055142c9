# expect: denied-attribute
getattr(1, chr(95) * 2 + 'class' + chr(95) * 2)
