# expect: module-write
import statistics
def patch():
    statistics.mean = len
patch()
