f = getattr(__builtins__, "ev" + "al")
f("1")
