# SPDX-License-Identifier: LGPL-2.1-or-later
# The seed README's "Python API Usage" (../shared/seeds/002_*.txt), verbatim
# except for the import line (agent_code_sandbox -> acs_launch) and the
# indentation of f.write(...) inside the code string, which the document's
# text lost (without it the sandboxed code is an IndentationError).
from acs_launch import SandboxEngine, ASTSecurityScanner
engine = SandboxEngine()
# 1. Execute safe Python code
result = engine.execute_python(
code="""
import math
print("Calculated:", math.sqrt(144))
with open("result.txt", "w") as f:
    f.write("Computation complete")
""",
timeout=3.0
)
print(result.stdout) # "Calculated: 12.0"
print(result.diff.added_files) # ['result.txt']
print(result.execution_time_ms) # ~20ms
# 2. Halt malicious exploit attempts
malicious_code = "import os; os.system('cat /etc/passwd')"
bad_result = engine.execute_python(malicious_code)
print(bad_result.is_safe) # False
print(bad_result.stderr) # "SecurityViolationError: Forbidden import 'os'"
