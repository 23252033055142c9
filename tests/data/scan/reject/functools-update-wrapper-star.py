# expect: reflective-access
import functools
args = [print, print, ['x'], []]
functools.update_wrapper(*args)
