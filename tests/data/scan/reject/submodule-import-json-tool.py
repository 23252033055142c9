# expect: forbidden-import
import json.tool
