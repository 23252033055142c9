# expect: module-internals
import statistics
statistics.random._os.system("id")
