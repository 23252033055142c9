# expect: forbidden-import
import importlib
importlib.import_module('os').system('id')
