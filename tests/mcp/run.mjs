// SPDX-License-Identifier: LGPL-2.1-or-later
// Entry point: raw-line tests always; SDK tests when the pinned SDK is installed.
// "security" runs only the attack tests (tests/security/mcp.sh); "results" only results.mjs.
// Emits one TAP stream. Env: ACS_BUILDDIR, ACS_SRCDIR (as for the shell tests).
import { runAll, finish, loadSdk, test } from './lib.mjs';
import { register as registerRaw } from './raw.mjs';
import { register as registerSdk } from './sdk.mjs';
import { register as registerResults } from './results.mjs';
import { register as registerSecurity } from './security.mjs';
import { register as registerPool } from './pool.mjs';

const only = process.argv[2]; // "raw" | "sdk" | "security" | undefined
if (only === 'security') registerSecurity();
if (only === undefined || only === 'raw') registerRaw();
if (only === undefined || only === 'sdk' || only === 'results') {
  const sdk = await loadSdk();
  if (sdk) {
    console.log(`# MCP SDK from ${sdk.dir}`);
    if (only !== 'results') registerSdk(sdk);
    registerResults(sdk);
    if (only !== 'results') registerPool(sdk);
  } else {
    test('sdk', async (t) => t.skip('SDK client tests', 'tests/mcp/node_modules missing: run npm ci in tests/mcp'));
  }
}
await runAll();
process.exitCode = finish();
