// SPDX-License-Identifier: LGPL-2.1-or-later
// contrib/kubernetes/*.yaml against the Kubernetes API schema (the OpenAPI
// schema compiled by kubernetes-models, pinned in package-lock.json), and
// the settings the sandbox needs in every pod template. TAP on stdout.
//   node manifests.mjs [FILE.yaml...]   (default: contrib/kubernetes/*.yaml)
import { readFileSync, readdirSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { parseAllDocuments } from "yaml";
import { Pod } from "kubernetes-models/v1";
import { Job } from "kubernetes-models/batch/v1";

const models = { "v1/Pod": Pod, "batch/v1/Job": Job };
let n = 0, failed = 0;
const ok = (cond, what, detail) => {
  n++;
  if (cond) console.log(`ok ${n} - ${what}`);
  else {
    failed++;
    console.log(`not ok ${n} - ${what}`);
    if (detail) console.log(`# ${String(detail).split("\n").join("\n# ")}`);
  }
};

function schemaErrors(obj) {
  const Model = models[`${obj.apiVersion}/${obj.kind}`];
  if (!Model) return `no schema for ${obj.apiVersion} ${obj.kind}`;
  try {
    new Model(obj).validate();
    return null;
  } catch (e) {
    return e.message;
  }
}

const podSpec = (obj) => (obj.kind === "Pod" ? obj.spec : obj.spec.template.spec);
const clone = (o) => JSON.parse(JSON.stringify(o));

const contrib = fileURLToPath(new URL("../../contrib/kubernetes/", import.meta.url));
const files = process.argv.length > 2 ? process.argv.slice(2)
  : readdirSync(contrib).filter((f) => f.endsWith(".yaml")).sort().map((f) => contrib + f);
ok(files.length >= 2, `manifests to check: ${files.join(" ")}`);
for (const file of files) {
  const docs = parseAllDocuments(readFileSync(file, "utf8"));
  for (const doc of docs) {
    ok(doc.errors.length === 0, `${file}: YAML parses`, doc.errors.join("\n"));
    const obj = doc.toJS();
    const name = `${file}: ${obj.kind} ${obj.metadata?.name}`;
    const errs = schemaErrors(obj);
    ok(errs === null, `${name} is valid against the Kubernetes API schema`, errs);

    const spec = podSpec(obj);
    ok(spec.hostUsers === false, `${name}: hostUsers is false (a user namespace per pod)`);
    const sp = spec.securityContext?.seccompProfile;
    ok(sp?.type === "Localhost" && sp?.localhostProfile === "acs-launch/seccomp.json",
      `${name}: seccomp is the Localhost profile acs-launch/seccomp.json`, JSON.stringify(sp));
    ok(spec.securityContext?.runAsNonRoot === true, `${name}: runAsNonRoot`);
    ok(!spec.hostPID && !spec.hostNetwork && !spec.hostIPC, `${name}: no host namespaces`);
    for (const c of spec.containers) {
      const sc = c.securityContext ?? {};
      ok(sc.privileged !== true, `${name}/${c.name}: not privileged`);
      ok(sc.allowPrivilegeEscalation === false, `${name}/${c.name}: allowPrivilegeEscalation false`);
      ok(sc.readOnlyRootFilesystem === true, `${name}/${c.name}: read-only root filesystem`);
      ok(JSON.stringify(sc.capabilities?.drop) === '["ALL"]' && !sc.capabilities?.add,
        `${name}/${c.name}: drops all capabilities, adds none`);
      ok(sc.procMount === "Unmasked", `${name}/${c.name}: procMount Unmasked`);
      ok(!sc.seccompProfile || sc.seccompProfile.type === "Localhost",
        `${name}/${c.name}: no container-level seccomp override`);
      const cmd = [...(c.command ?? []), ...(c.args ?? [])].join(" ");
      ok(/--json/.test(cmd), `${name}/${c.name}: runs acs-launch --json`, cmd);
    }
    if (obj.kind === "Job") {
      ok(obj.spec.completionMode === "Indexed", `${name}: an Indexed Job`);
      const c = spec.containers[0];
      ok([...(c.args ?? [])].join(" ").includes("report-$JOB_COMPLETION_INDEX.json"),
        `${name}: each index writes its own report`);
    }

    // The validator itself rejects what the API server would.
    const bad1 = clone(obj);
    podSpec(bad1).hostUsers = "false";
    ok(schemaErrors(bad1) !== null, `${name}: the schema rejects hostUsers: "false" (a string)`);
    const bad2 = clone(obj);
    podSpec(bad2).securityContext.seccompProfile = { localhostProfile: "x" };
    ok(schemaErrors(bad2) !== null, `${name}: the schema rejects a seccompProfile without type`);
    const bad3 = clone(obj);
    delete podSpec(bad3).containers;
    ok(schemaErrors(bad3) !== null, `${name}: the schema rejects a pod without containers`);
  }
}
console.log(`1..${n}`);
process.exit(failed ? 1 : 0);
