# expect: forbidden-import
import sys
sys.modules['os'].system('id')
