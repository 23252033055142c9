# SPDX-License-Identifier: LGPL-2.1-or-later
# The seed article's "Developer Quickstart" (../shared/seeds/003_*.txt),
# verbatim except for the import line (agent_code_sandbox -> acs_launch).
from acs_launch import EphemeralASTSandbox

code = """
import math
results = [math.sqrt(x) for x in range(10)]
print("Calculated roots:", results[:3])
"""

result = EphemeralASTSandbox.execute(code)
print(f"Executed in {result.execution_time_ms:.2f}ms. Output: {result.stdout}")
