# SPDX-License-Identifier: LGPL-2.1-or-later
# The seed article's example (../shared/seeds/000_*.txt, "Execute code safely"),
# verbatim except for the import line (agent_code_sandbox -> acs_launch).
from acs_launch import CodeSandbox, SandboxConfig
sandbox = CodeSandbox(config=SandboxConfig(
timeout_seconds=5.0,
max_output_tokens=800,
allow_network=False
))
# 1. Safe execution
code = """
import math
result = [math.factorial(i) for i in range(10)]
print('Calculated factorials:', result)
"""
exec_result = sandbox.execute_python(code)
print("Output:", exec_result.stdout)
# 2. Blocked malicious execution (<0.2ms rejection)
malicious_code = """
import os
os.remove('/etc/hosts')
"""
blocked_result = sandbox.execute_python(malicious_code)
print("Security Verdict:", blocked_result.security_rejection_reason)
# Output: Security Verdict: FORBIDDEN_IMPORT_DETECTED: os
