# expect: forbidden-import
from json.tool import main
