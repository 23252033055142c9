#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Generate src/mcp-schemas.h from doc/report.schema.json.

The MCP tools' outputSchema is derived from the one file that defines the
report, but kept lean, because the official SDKs validate every result
against it. The Python SDK (1.x) calls jsonschema.validate() per result,
which first checks the schema against its meta-schema: that costs about
0.25 ms per subschema under the 2020-12 meta-schema (whose $dynamicRefs are
slow) and about 0.06 ms under draft-07; the full 16 KB report schema cost
~30-45 ms a call. So the advertised schema
  - declares draft-07, the dialect Ajv (the TypeScript SDK's validator)
    and jsonschema both know without fetching anything, and uses only
    keywords that mean the same in 2020-12 (type, const, enum, required,
    properties, description);
  - requires every field the report always has, and types the few a model
    reads first (KEEP);
  - names every other top-level field, with its type and first sentence, in
    its description, and leaves objects open: nothing structuredContent
    carries is refused or left undescribed; the full schema,
    report.schema.json (installed with acs-launch; its $id is named), holds
    the nested detail, and `acs-launch --json` reports are tested against it.
bench/mcp-schema.py measures the cost. inspect_code_security returns what
`acs-launch check --json` prints (acs-check/1), whose "scan" is the report's.
"""
import json
import re
import sys


def first_sentence(text):
    # a sentence ends at a full stop before a capital: not at "e.g. a"
    m = re.match(r"(.+?\.)(\s+[A-Z(]|$)", text, re.S)
    return (m.group(1) if m else text).strip()


def json_types(prop, defs):
    """The JSON types a property may take, $ref and oneOf resolved one level."""
    if "$ref" in prop:
        return json_types(defs[prop["$ref"].rsplit("/", 1)[1]], defs)
    if "oneOf" in prop or "anyOf" in prop:
        out = []
        for alt in prop.get("oneOf", prop.get("anyOf")):
            for t in json_types(alt, defs):
                if t not in out:
                    out.append(t)
        return out
    if "const" in prop:
        return [{str: "string", int: "integer", bool: "boolean"}[type(prop["const"])]]
    t = prop.get("type")
    return t if isinstance(t, list) else [t] if t else []


def lean(prop, defs):
    out = {}
    types = json_types(prop, defs)
    if "const" in prop:
        out["const"] = prop["const"]
    elif types:
        out["type"] = types[0] if len(types) == 1 else types
    if "enum" in prop:
        out["enum"] = prop["enum"]
    if prop.get("description"):
        # status is what a model reads first: each value is explained
        out["description"] = prop["description"] if "enum" in prop else first_sentence(prop["description"])
    return out


DIALECT = "http://json-schema.org/draft-07/schema#"
# typed in outputSchema; the report's other fields are described in prose
KEEP = ("schema", "status", "exit_code", "stdout", "stderr", "files")


def type_words(prop):
    if "const" in prop:
        return json.dumps(prop["const"])
    t = prop.get("type", "")
    return " or ".join(t) if isinstance(t, list) else t


def lean_object(schema, title, description, keep):
    defs = schema.get("$defs", {})
    props = {k: lean(v, defs) for k, v in schema["properties"].items()}
    rest = [f"{k} ({type_words(v)}): {v.get('description', '')}" for k, v in props.items() if k not in keep]
    if rest:
        description += " Other fields: " + " ".join(rest)
    return {
        "$schema": DIALECT,
        "title": title,
        "description": description,
        "type": "object",
        "required": schema["required"],
        "properties": {k: v for k, v in props.items() if k in keep},
    }


def c_string(name, value):
    text = json.dumps(value, separators=(",", ":"), ensure_ascii=True)
    chunks = [text[i:i + 100] for i in range(0, len(text), 100)]
    body = "\n".join("        " + json.dumps(c) for c in chunks)
    return f"static const char {name}[] =\n{body};\n"


def main():
    with open(sys.argv[1], encoding="utf-8") as f:
        report = json.load(f)
    full = report["$id"]
    report_lean = lean_object(
        report, report["title"],
        "The run report, as `acs-launch --json` prints it. Top-level fields only; nested objects are "
        f"described by the full schema, report.schema.json ({full}), installed with acs-launch.", KEEP)
    check_full = {
        "required": ["schema", "profile", "file", "scan"],
        "properties": {
            "schema": {"const": "acs-check/1"},
            "profile": {"type": "string", "description": "The profile whose rules were applied."},
            "file": {"type": "string", "description": "The name findings refer to."},
            "scan": report["properties"]["scan"],
        },
    }
    check = lean_object(
        check_full, "acs-launch scan result, version acs-check/1",
        "What inspect_code_security (and `acs-launch check --json`) returns: the profile's verdict on "
        f"the code and each finding; nothing ran. \"scan\" is described by report.schema.json ({full}).",
        ("schema", "profile", "file", "scan"))
    sys.stdout.write("/* SPDX-License-Identifier: LGPL-2.1-or-later */\n"
                     "/* Generated by src/mcp-schemas.py from doc/report.schema.json. Do not edit. */\n"
                     "#pragma once\n\n")
    sys.stdout.write(c_string("acs_mcp_report_schema", report_lean))
    sys.stdout.write(c_string("acs_mcp_check_schema", check))


if __name__ == "__main__":
    main()
