# expect: forbidden-import
import _ctypes
