#!/usr/bin/env python3
"""Regenerates registry-fixtures/invalid/ and the registry-fixtures/valid/accepted--* variants.

Each invalid case is a copy of a valid fixture package with
exactly one rule broken. The case name starts with the diagnostic code it must produce
(`<code>--<what>`); where one mutation necessarily breaks two rules the codes are joined by `+`.
The fixture test checks that the error codes of each case are exactly those of its name, and
that its diagnostics (code, file, line, column) equal the case's diagnostics.json.

Usage: python3 scripts/make-invalid-fixtures.py && SNAPSHOTS=overwrite cargo test --test it fixtures
"""
import json, os, shutil

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "registry-fixtures")
FULL = "release-review"
MIN = "minimal"
MANIFEST = "expert-squad.jsonc"

ARRAYS = ["built_in_tool_ids", "default_skill_refs", "package_skill_refs", "default_tool_refs",
          "package_tool_refs", "default_mcp_server_refs", "package_mcp_server_refs",
          "default_mcp_tool_refs", "package_mcp_tool_refs", "default_mcp_prompt_refs",
          "package_mcp_prompt_refs", "default_mcp_resource_refs", "package_mcp_resource_refs"]


def sub(old, new, path=MANIFEST):
    return ("sub", path, old, new)


def add_agent(key, base_role="build", **extra):
    body = {"label": "Extra", "base_role": base_role, "inherit_base_tools": False}
    body.update({name: [] for name in ARRAYS})
    body.update(extra)
    return sub('"agents": {', '"agents": {\n      %s: %s,' % (json.dumps(key), json.dumps(body)))


def write(path, content):
    return ("write", path, content)


def prepend(path, text):
    return ("prepend", path, text)


def append(path, text):
    return ("append", path, text)


def rm(path):
    return ("rm", path)


TOOL = "tools/summarize-changes.ts"
AGENT_TOOL = "agents/builder/tools/check-build.ts"


def imports(line, path=TOOL):
    return prepend(path, line + "\n")


def version(value):
    return sub('"version": "2026.11.30.1"', '"version": "%s"' % value)


def skill(path, frontmatter, body="Body.\n"):
    return write(path, "---\n%s---\n\n%s" % (frontmatter, body))


CASES = [
    # MAN-F2: syntax
    ("jsonc-syntax--byte-order-mark", FULL, [prepend(MANIFEST, "\ufeff")]),
    ("jsonc-syntax--single-quoted-key", FULL, [sub('"label": "Release Review"', "'label': \"Release Review\"")]),
    ("jsonc-syntax--unquoted-key", FULL, [sub('"label": "Release Review"', 'label: "Release Review"')]),
    ("jsonc-syntax--missing-comma", FULL, [sub('"namespace": "acme",', '"namespace": "acme"')]),
    ("jsonc-syntax--hash-comment", FULL, [prepend(MANIFEST, "# comment\n")]),
    ("jsonc-syntax--no-break-space", FULL, [sub('"namespace": "acme"', '"namespace":\u00a0"acme"')]),
    ("jsonc-syntax--trailing-text", FULL, [append(MANIFEST, "\nextra\n")]),
    ("jsonc-syntax--second-object", FULL, [append(MANIFEST, "{}\n")]),
    ("jsonc-syntax--unterminated-comment", FULL, [append(MANIFEST, "/* never closed\n")]),
    ("jsonc-syntax--tab-in-string", FULL, [sub('"label": "Release Review"', '"label": "Release\tReview"')]),
    ("jsonc-syntax--nan", MIN, [sub('"schema_version": 1', '"schema_version": NaN')]),
    ("jsonc-syntax--empty-file", MIN, [write(MANIFEST, "")]),
    ("jsonc-syntax--invalid-escape", MIN, [sub('"label": "Minimal"', '"label": "Min\\qimal"')]),
    ("jsonc-syntax--mcp-declaration", FULL, [sub('"timeout": 30000,', '"timeout": 30000,,', "mcp/tracker.jsonc")]),
    # MAN-F3: closed objects
    ("unknown-field--top-level-agents", FULL, [sub('"readme": "README.md",', '"readme": "README.md",\n  "agents": {},')]),
    ("unknown-field--scheduler-label", FULL, [sub('"base_role": "orchestrator",', '"base_role": "orchestrator",\n      "label": "Scheduler",')]),
    ("unknown-field--agent-status", FULL, [sub('"label": "Builder",', '"label": "Builder",\n        "status": "active",')]),
    ("unknown-field--node-active-flag", FULL, [sub('"description": "Build and record evidence.",', '"description": "Build and record evidence.", "active": true,')]),
    ("unknown-field--selector-extra", FULL, [sub('"instructions": "selector.md",', '"instructions": "selector.md",\n    "priority": 1,')]),
    ("unknown-field--workflow-default", FULL, [sub('"label": "Release",', '"label": "Release",\n        "default": true,')]),
    ("unknown-field--configuration-field-value", FULL, [sub('"required": false, "placeholder"', '"required": false, "value": "x", "placeholder"')]),
    ("unknown-field--mcp-enabled", FULL, [sub('"type": "remote",', '"type": "remote",\n  "enabled": true,', "mcp/tracker.jsonc")]),
    # Required fields
    ("missing-field--label", MIN, [sub('"label": "Minimal",', '')]),
    ("missing-field--scheduler-array", FULL, [sub('"package_tool_refs": [],\n      "default_mcp_server_refs"', '"default_mcp_server_refs"')]),
    ("missing-field--agent-inherit-base-tools", FULL, [sub('"inherit_base_tools": false,', '')]),
    ("missing-field--node-depends-on", FULL, [sub('"description": "Review everything.", "depends_on": ["build", "security-review"]', '"description": "Review everything."')]),
    ("missing-field--virtual-workflows", MIN, [sub(',\n    "virtual_workflows": {}', '')]),
    ("missing-field--mcp-transport", FULL, [sub('"transport": "sse",', '', "agents/reviewer/mcp/evidence.json")]),
    # Types (STR-1: optional fields are absent, never null)
    ("wrong-type--schema-version-string", MIN, [sub('"schema_version": 1', '"schema_version": "1"')]),
    ("wrong-type--name-null", FULL, [sub('"name": "Release Review"', '"name": null')]),
    ("wrong-type--built-in-tool-ids-string", FULL, [sub('"built_in_tool_ids": ["skill"]', '"built_in_tool_ids": "skill"')]),
    ("wrong-type--inherit-base-tools-string", FULL, [sub('"inherit_base_tools": false', '"inherit_base_tools": "false"')]),
    ("wrong-type--depends-on-string", FULL, [sub('"depends_on": ["requirements"] },\n          "security-review"', '"depends_on": "requirements" },\n          "security-review"')]),
    ("wrong-type--manifest-is-array", MIN, [write(MANIFEST, "[]\n")]),
    ("wrong-type--mcp-headers-number", FULL, [sub('"timeout": 30000,', '"timeout": 30000,\n  "headers": { "X-Team": 7 },', "mcp/tracker.jsonc")]),
    # Fixed values
    ("invalid-literal--schema-version-2", MIN, [sub('"schema_version": 1', '"schema_version": 2')]),
    ("invalid-literal--readme-path", FULL, [sub('"readme": "README.md"', '"readme": "docs/README.md"')]),
    ("invalid-literal--system-role", FULL, [sub('"readme": "README.md",', '"readme": "README.md",\n  "system_role": "generator",')]),
    ("invalid-literal--scheduler-base-role", FULL, [sub('"base_role": "orchestrator"', '"base_role": "build"')]),
    ("invalid-literal--execution-contract", FULL, [sub('"execution_contract": "platform_integrity_review"', '"execution_contract": "review"')]),
    ("invalid-literal--configuration-type", FULL, [sub('"type": "secret"', '"type": "number"')]),
    ("invalid-literal--selector-instructions", FULL, [sub('"instructions": "selector.md"', '"instructions": "sel.md"')]),
    ("invalid-literal--mcp-type-local", FULL, [sub('"type": "remote"', '"type": "local"', "mcp/tracker.jsonc")]),
    ("invalid-literal--mcp-timeout-zero", FULL, [sub('"timeout": 30000', '"timeout": 0', "mcp/tracker.jsonc")]),
    # STR-1: empty and blank strings
    ("blank-string--label-empty", MIN, [sub('"label": "Minimal"', '"label": ""')]),
    ("blank-string--agent-label-blank", FULL, [sub('"label": "Builder"', '"label": "   "')]),
    ("blank-string--name-blank", FULL, [sub('"name": "Release Review"', '"name": "  "')]),
    ("blank-string--node-description", FULL, [sub('"description": "Review everything."', '"description": " \\t"')]),
    ("blank-string--workflow-label", FULL, [sub('"label": "Release",', '"label": " ",')]),
    ("blank-string--selector-summary", MIN, [sub('"summary": "s"', '"summary": ""')]),
    ("blank-string--built-in-tool-id-empty", FULL, [sub('"built_in_tool_ids": ["skill"]', '"built_in_tool_ids": [""]')]),
    # ID-1…ID-4, LIM-3
    ("invalid-id--id-with-space", MIN, [sub('"id": "minimal-squad"', '"id": "Invalid ID"')]),
    ("invalid-id--namespace-upper-case", MIN, [sub('"namespace": "acme"', '"namespace": "Acme"')]),
    ("invalid-id--id-65-characters", MIN, [sub('"id": "minimal-squad"', '"id": "%s"' % ("a" * 65))]),
    ("invalid-id--id-double-hyphen", MIN, [sub('"id": "minimal-squad"', '"id": "minimal--squad"')]),
    ("invalid-id--workflow-id", FULL, [sub('"release": {', '"Release": {')]),
    ("invalid-id--node-id", FULL, [sub('"final-review": {', '"final_review": {')]),
    ("invalid-id--configuration-key", FULL, [sub('"key": "tracker_url"', '"key": "A-b"')]),
    ("invalid-id--agent-key-trailing-hyphen", FULL, [add_agent("extra-")]),
    # ID-3, ID-6
    ("reserved-id--agent-orchestrator", FULL, [add_agent("orchestrator")]),
    ("reserved-id--agent-universal-build", FULL, [add_agent("universal-build")]),
    ("reserved-id--agent-shared", FULL, [add_agent("shared")]),
    ("reserved-id--node-agent-orchestrator", FULL, [sub('"agent_id": "requirements-analyst"', '"agent_id": "orchestrator"')]),
    ("reserved-id--package-id-runtime", MIN, [sub('"id": "minimal-squad"', '"id": "runtime"')]),
    ("reserved-id--namespace-worktrees", MIN, [sub('"namespace": "acme"', '"namespace": "worktrees"')]),
    # VER-1, VER-2
    ("invalid-version--one-digit-month", FULL, [version("2026.1.01.1")]),
    ("invalid-version--revision-zero", FULL, [version("2026.01.01.0")]),
    ("invalid-version--leading-zero-revision", FULL, [version("2026.01.01.01")]),
    ("invalid-version--semver", FULL, [version("1.2.3")]),
    ("invalid-version-date--not-a-leap-year", FULL, [version("2026.02.29.1")]),
    ("invalid-version-date--two-digit-year", FULL, [version("0099.12.31.1")]),
    ("invalid-version-date--month-13", FULL, [version("2026.13.01.1")]),
    ("invalid-version-date--day-zero", FULL, [version("2026.01.00.1")]),
    # MAN-8, CFG-1, WF-3
    ("empty-list--product-pillars", FULL, [sub('"product_pillars": ["code", "work"]', '"product_pillars": []')]),
    ("empty-list--configuration-fields", MIN, [sub('"readme": "README.md",', '"readme": "README.md", "configuration": { "fields": [] },')]),
    ("empty-list--workflow-nodes", MIN, [sub('"virtual_workflows": {}', '"virtual_workflows": { "flow": { "label": "Flow", "description": "d", "nodes": {} } }')]),
    # RES-U, CFG-3, MAN-8, GR-2
    ("duplicate-entry--built-in-tool-ids", FULL, [sub('"built_in_tool_ids": ["skill"]', '"built_in_tool_ids": ["skill", "skill"]')]),
    ("duplicate-entry--package-skill-refs", FULL, [sub('"package_skill_refs": ["release-review/shared/release-method"],\n      "default_tool_refs"', '"package_skill_refs": ["release-review/shared/release-method", "release-review/shared/release-method"],\n      "default_tool_refs"')]),
    ("duplicate-entry--configuration-key", FULL, [sub('"key": "tracker_token"', '"key": "tracker_url"')]),
    ("duplicate-entry--mcp-capability", FULL, [sub('"tools": ["list_issues"]', '"tools": ["list_issues", "list_issues"]', "mcp/tracker.jsonc")]),
    ("duplicate-entry+unsorted-list--pillars-repeat", FULL, [sub('"product_pillars": ["code", "work"]', '"product_pillars": ["work", "work"]')]),
    ("duplicate-entry+unsorted-list--depends-on-repeat", FULL, [sub('"depends_on": ["build", "security-review"]', '"depends_on": ["build", "build", "security-review"]')]),
    ("unsorted-list--product-pillars", FULL, [sub('"product_pillars": ["code", "work"]', '"product_pillars": ["work", "code"]')]),
    ("unsorted-list--depends-on", FULL, [sub('"depends_on": ["build", "security-review"]', '"depends_on": ["security-review", "build"]')]),
    ("unsorted-list--depends-on-hyphen-before-digit", FULL, [
        sub('"depends_on": ["build", "security-review"]', '"depends_on": ["build", "build-2", "build0"]'),
        sub('"security-review": {', '"build-2": { "agent_id": "builder", "description": "Second build.", "depends_on": [] },\n          "build0": { "agent_id": "builder", "description": "Zeroth build.", "depends_on": [] },\n          "security-review": {'),
        sub('"build-2", "build0"', '"build0", "build-2"'),
    ]),
    # AG-3a, AG-4a
    ("unknown-base-role--foo", FULL, [sub('"base_role": "requirements"', '"base_role": "foo"')]),
    ("unknown-base-role--orchestrator-for-agent", FULL, [sub('"base_role": "requirements"', '"base_role": "orchestrator"')]),
    ("unknown-base-role--upper-case", FULL, [sub('"base_role": "build"', '"base_role": "Build"')]),
    ("execution-contract-mismatch--integrity-without-contract", FULL, [sub('"execution_contract": "platform_integrity_review",', '')]),
    ("execution-contract-mismatch--contract-on-build", FULL, [sub('"base_role": "build",', '"base_role": "build",\n        "execution_contract": "platform_integrity_review",')]),
    ("execution-contract-mismatch--integrity-added-without-contract", FULL, [add_agent("auditor", "integrity")]),
    # MAN-R2
    ("invalid-prompt-path--scheduler-x-md", FULL, [sub('"prompt": "agents/orchestrator/system.md"', '"prompt": "x.md"')]),
    ("invalid-prompt-path--other-owner", FULL, [sub('"prompt": "agents/builder/system.md"', '"prompt": "agents/reviewer/system.md"')]),
    ("invalid-prompt-path--case", FULL, [sub('"prompt": "agents/builder/system.md"', '"prompt": "agents/builder/SYSTEM.md"')]),
    # TOOL-1
    ("unknown-built-in-tool--typo", FULL, [sub('"built_in_tool_ids": ["skill"]', '"built_in_tool_ids": ["skil"]')]),
    ("unknown-built-in-tool--hyphenated", FULL, [sub('"built_in_tool_ids": ["dispatch_agent", "manage_task", "read"]', '"built_in_tool_ids": ["dispatch-agent", "manage_task", "read"]')]),
    ("unknown-built-in-tool--default-host-tool", FULL, [sub('"built_in_tool_ids": ["skill"]', '"built_in_tool_ids": ["webpage_extract"]')]),
    ("tool-not-supplied-by-role--scheduler-write", FULL, [sub('"built_in_tool_ids": ["dispatch_agent", "manage_task", "read"]', '"built_in_tool_ids": ["dispatch_agent", "manage_task", "read", "write"]')]),
    ("tool-not-supplied-by-role--integrity-bash", FULL, [sub('"built_in_tool_ids": ["skill"]', '"built_in_tool_ids": ["bash", "skill"]')]),
    ("tool-not-supplied-by-role--requirements-bash", FULL, [sub('"built_in_tool_ids": ["todowrite"]', '"built_in_tool_ids": ["bash"]')]),
    ("tool-not-supplied-by-role--build-default-tool", FULL, [sub('"default_tool_refs": [],\n        "package_tool_refs": ["release-review/shared/summarize-changes"', '"default_tool_refs": ["default/tool/webpage_extract"],\n        "package_tool_refs": ["release-review/shared/summarize-changes"')]),
    ("tool-not-supplied-by-role--scheduler-default-tool", MIN, [sub('"built_in_tool_ids": [],\n      "default_skill_refs": [], "package_skill_refs": [], "default_tool_refs": []', '"built_in_tool_ids": [],\n      "default_skill_refs": [], "package_skill_refs": [], "default_tool_refs": ["default/tool/webpage_compile"]')]),
    # DREF-1…6, TOOL-2
    ("invalid-default-ref--skills-plural", FULL, [sub('"default/skill/writing"', '"default/skills/writing"')]),
    ("invalid-default-ref--skill-name-space", FULL, [sub('"default/skill/writing"', '"default/skill/ writing"')]),
    ("invalid-default-ref--mcp-tools-plural", FULL, [sub('"default/mcp/github/tool/search_issues"', '"default/mcp/github/tools/search_issues"')]),
    ("invalid-default-ref--tool-with-slash", FULL, [sub('"default_tool_refs": [],\n        "package_tool_refs": ["release-review/shared/summarize-changes"', '"default_tool_refs": ["default/tool/a/b"],\n        "package_tool_refs": ["release-review/shared/summarize-changes"')]),
    ("unknown-default-tool--nope", FULL, [sub('"default_tool_refs": [],\n        "package_tool_refs": ["release-review/shared/summarize-changes"', '"default_tool_refs": ["default/tool/nope"],\n        "package_tool_refs": ["release-review/shared/summarize-changes"')]),
    ("unknown-default-tool--core-tool-name", FULL, [sub('"default_tool_refs": [],\n        "package_tool_refs": ["release-review/shared/summarize-changes"', '"default_tool_refs": ["default/tool/bash"],\n        "package_tool_refs": ["release-review/shared/summarize-changes"')]),
    ("unknown-default-tool--frontend-design-tool-typo", FULL, [sub('"base_role": "build"', '"base_role": "frontend-design"'), sub('"built_in_tool_ids": ["bash", "read", "work_artifact_author"]', '"built_in_tool_ids": ["bash", "read"]'), sub('"default_tool_refs": [],\n        "package_tool_refs": ["release-review/shared/summarize-changes"', '"default_tool_refs": ["default/tool/create_visual_region_atlas"],\n        "package_tool_refs": ["release-review/shared/summarize-changes"')]),
    ("default-mcp-server-unsupported--github", FULL, [sub('"default_mcp_server_refs": [],\n        "package_mcp_server_refs": [],\n        "default_mcp_tool_refs": ["default/mcp/github', '"default_mcp_server_refs": ["default/mcp/github"],\n        "package_mcp_server_refs": [],\n        "default_mcp_tool_refs": ["default/mcp/github')]),
    ("default-mcp-server-unsupported--scheduler", MIN, [sub('"default_mcp_server_refs": [], "package_mcp_server_refs": [], "default_mcp_tool_refs": [],\n      "package_mcp_tool_refs": [], "default_mcp_prompt_refs": [], "package_mcp_prompt_refs": [],\n      "default_mcp_resource_refs": [], "package_mcp_resource_refs": [] },', '"default_mcp_server_refs": ["default/mcp/docs"], "package_mcp_server_refs": [], "default_mcp_tool_refs": [],\n      "package_mcp_tool_refs": [], "default_mcp_prompt_refs": [], "package_mcp_prompt_refs": [],\n      "default_mcp_resource_refs": [], "package_mcp_resource_refs": [] },')]),
    ("default-mcp-server-unsupported--two-servers", FULL, [sub('"default_mcp_server_refs": [],\n        "package_mcp_server_refs": [],\n        "default_mcp_tool_refs": ["default/mcp/github', '"default_mcp_server_refs": ["default/mcp/a", "default/mcp/b"],\n        "package_mcp_server_refs": [],\n        "default_mcp_tool_refs": ["default/mcp/github')]),
    # PREF-1
    ("foreign-package-ref--other-id", FULL, [sub('"package_skill_refs": ["release-review/shared/release-method"],\n      "default_tool_refs"', '"package_skill_refs": ["release-review/shared/release-method", "other-squad/shared/release-method"],\n      "default_tool_refs"')]),
    ("foreign-package-ref--namespace-instead-of-id", FULL, [sub('"package_tool_refs": ["release-review/shared/summarize-changes",', '"package_tool_refs": ["acme/shared/summarize-changes", "release-review/shared/summarize-changes",')]),
    ("foreign-package-ref--default-prefix-in-package-array", FULL, [sub('"default_mcp_tool_refs": [],\n        "package_mcp_tool_refs": ["release-review/reviewer', '"default_mcp_tool_refs": [],\n        "package_mcp_tool_refs": ["default/mcp/x/tool/y", "release-review/reviewer')]),
    ("dangling-ref--skill", FULL, [sub('"package_skill_refs": ["release-review/shared/release-method"],\n      "default_tool_refs"', '"package_skill_refs": ["release-review/shared/release-method", "release-review/shared/missing-method"],\n      "default_tool_refs"')]),
    ("dangling-ref--tool", FULL, [sub('"package_tool_refs": ["release-review/shared/summarize-changes",', '"package_tool_refs": ["release-review/shared/summarize", "release-review/shared/summarize-changes",')]),
    ("dangling-ref--mcp-capability", FULL, [sub('"package_mcp_tool_refs": ["release-review/shared/tracker/tool/list_issues"]', '"package_mcp_tool_refs": ["release-review/shared/tracker/tool/list_issues", "release-review/shared/tracker/tool/close_issue"]')]),
    ("dangling-ref--kind-mismatch", FULL, [sub('"package_mcp_prompt_refs": ["release-review/reviewer/evidence/prompt/review_template"]', '"package_mcp_prompt_refs": ["release-review/reviewer/evidence/prompt/review_template", "release-review/reviewer/evidence/tool/fetch_evidence"]')]),
    ("dangling-ref--server", FULL, [sub('"package_mcp_server_refs": ["release-review/shared/tracker"]', '"package_mcp_server_refs": ["release-review/shared/tracker", "release-review/shared/wiki"]')]),
    # PREF-2, PREF-3
    ("ref-not-owned--agent-skill", FULL, [sub('"package_skill_refs": ["release-review/shared/release-method", "release-review/shared/checklists/security"]', '"package_skill_refs": ["release-review/builder/build-notes", "release-review/shared/release-method", "release-review/shared/checklists/security"]')]),
    ("ref-not-owned--agent-tool", FULL, [sub('"default_tool_refs": [],\n        "package_tool_refs": [],\n        "default_mcp_server_refs": [],\n        "package_mcp_server_refs": [],\n        "default_mcp_tool_refs": [],\n        "package_mcp_tool_refs": ["release-review/reviewer', '"default_tool_refs": [],\n        "package_tool_refs": ["release-review/builder/check-build"],\n        "default_mcp_server_refs": [],\n        "package_mcp_server_refs": [],\n        "default_mcp_tool_refs": [],\n        "package_mcp_tool_refs": ["release-review/reviewer')]),
    ("ref-not-owned--agent-mcp-tool", FULL, [sub('"package_mcp_tool_refs": ["release-review/shared/tracker/tool/list_issues"]', '"package_mcp_tool_refs": ["release-review/reviewer/evidence/tool/fetch_evidence", "release-review/shared/tracker/tool/list_issues"]')]),
    ("ref-not-owned--scheduler-agent-skill", FULL, [sub('"package_skill_refs": ["release-review/shared/release-method"],\n      "default_tool_refs"', '"package_skill_refs": ["release-review/builder/build-notes", "release-review/shared/release-method"],\n      "default_tool_refs"')]),
    ("mcp-mounted-twice--tool", FULL, [sub('"package_mcp_server_refs": ["release-review/shared/tracker"],\n        "default_mcp_tool_refs": [],\n        "package_mcp_tool_refs": []', '"package_mcp_server_refs": ["release-review/shared/tracker"],\n        "default_mcp_tool_refs": [],\n        "package_mcp_tool_refs": ["release-review/shared/tracker/tool/list_issues"]')]),
    ("mcp-mounted-twice--prompt", FULL, [sub('"package_mcp_server_refs": [],\n        "default_mcp_tool_refs": [],\n        "package_mcp_tool_refs": ["release-review/reviewer', '"package_mcp_server_refs": ["release-review/reviewer/evidence"],\n        "default_mcp_tool_refs": [],\n        "package_mcp_tool_refs": ["release-review/reviewer'), sub('"package_mcp_tool_refs": ["release-review/reviewer/evidence/tool/fetch_evidence"]', '"package_mcp_tool_refs": []'), sub('"package_mcp_resource_refs": ["release-review/reviewer/evidence/resource/ledger"]', '"package_mcp_resource_refs": []')]),
    ("mcp-mounted-twice--resource", FULL, [sub('"package_mcp_server_refs": [],\n        "default_mcp_tool_refs": [],\n        "package_mcp_tool_refs": ["release-review/reviewer', '"package_mcp_server_refs": ["release-review/reviewer/evidence"],\n        "default_mcp_tool_refs": [],\n        "package_mcp_tool_refs": ["release-review/reviewer'), sub('"package_mcp_tool_refs": ["release-review/reviewer/evidence/tool/fetch_evidence"]', '"package_mcp_tool_refs": []'), sub('"package_mcp_prompt_refs": ["release-review/reviewer/evidence/prompt/review_template"]', '"package_mcp_prompt_refs": []')]),
    # PROJ-1, PROJ-2
    ("unprojected-resource--shared-skill", FULL, [sub(', "release-review/shared/checklists/security"]', ']')]),
    ("unprojected-resource--agent-skill", FULL, [sub('"package_skill_refs": ["release-review/builder/build-notes", "release-review/shared/release-method"]', '"package_skill_refs": ["release-review/shared/release-method"]')]),
    ("unprojected-resource--agent-tool", FULL, [sub(', "release-review/builder/check-build"]', ']')]),
    ("unprojected-resource--agent-mcp-prompt", FULL, [sub('"package_mcp_prompt_refs": ["release-review/reviewer/evidence/prompt/review_template"]', '"package_mcp_prompt_refs": []')]),
    ("unprojected-resource--new-shared-skill", FULL, [skill("skills/extra/SKILL.md", "name: extra\ndescription: An extra skill.\n")]),
    ("unprojected-resource--shared-server", FULL, [sub('"package_mcp_server_refs": ["release-review/shared/tracker"]', '"package_mcp_server_refs": []'), sub('"package_mcp_tool_refs": ["release-review/shared/tracker/tool/list_issues"]', '"package_mcp_tool_refs": []')]),
    ("unprojected-resource--scheduler-local-skill", FULL, [skill("agents/orchestrator/skills/dispatch/SKILL.md", "name: dispatch\ndescription: Dispatch rules.\n")]),
    # GR-1, GR-3, GR-4
    ("unknown-agent--ghost", FULL, [sub('"agent_id": "requirements-analyst"', '"agent_id": "ghost"')]),
    ("unknown-agent--scheduler-as-node", MIN, [sub('"virtual_workflows": {}', '"virtual_workflows": { "flow": { "label": "Flow", "description": "d", "nodes": { "n": { "agent_id": "workers", "description": "d", "depends_on": [] } } } }')]),
    ("unknown-agent--case", FULL, [sub('"agent_id": "builder"', '"agent_id": "builders"')]),
    ("unknown-dependency--missing-node", FULL, [sub('"depends_on": ["requirements"] },\n          "security-review"', '"depends_on": ["missing-node", "requirements"] },\n          "security-review"')]),
    ("unknown-dependency--other-workflow", FULL, [sub('"virtual_workflows": {', '"virtual_workflows": {\n      "hotfix": { "label": "Hotfix", "description": "Build only.", "nodes": { "patch": { "agent_id": "builder", "description": "Patch.", "depends_on": ["requirements"] } } },')]),
    ("unknown-dependency--typo", FULL, [sub('"depends_on": ["build", "security-review"]', '"depends_on": ["build", "security-reviews"]')]),
    ("self-dependency+dependency-cycle--build", FULL, [sub('"depends_on": ["requirements"] },\n          "security-review"', '"depends_on": ["build", "requirements"] },\n          "security-review"')]),
    ("self-dependency+dependency-cycle--single-node", MIN, [sub('"virtual_workflows": {}', '"virtual_workflows": { "flow": { "label": "Flow", "description": "d", "nodes": { "n": { "agent_id": "worker", "description": "d", "depends_on": ["n"] } } } }')]),
    ("self-dependency+dependency-cycle--final", FULL, [sub('"depends_on": ["build", "security-review"]', '"depends_on": ["build", "final-review", "security-review"]')]),
    ("dependency-cycle--two-nodes", FULL, [sub('"description": "Write acceptance criteria.", "depends_on": []', '"description": "Write acceptance criteria.", "depends_on": ["build"]')]),
    ("dependency-cycle--through-join", FULL, [sub('"description": "Write acceptance criteria.", "depends_on": []', '"description": "Write acceptance criteria.", "depends_on": ["final-review"]')]),
    ("dependency-cycle--three-nodes", MIN, [sub('"virtual_workflows": {}', '"virtual_workflows": { "flow": { "label": "Flow", "description": "d", "nodes": { "a": { "agent_id": "worker", "description": "d", "depends_on": ["c"] }, "b": { "agent_id": "worker", "description": "d", "depends_on": ["a"] }, "c": { "agent_id": "worker", "description": "d", "depends_on": ["b"] } } } }')]),
    # ROOT-2, AGD-3
    ("missing-file--readme", FULL, [rm("README.md")]),
    ("missing-file--selector", FULL, [rm("selector.md")]),
    ("missing-file--agent-prompt", FULL, [rm("agents/requirements-analyst/system.md")]),
    ("missing-file--manifest", MIN, [rm(MANIFEST)]),
    # TXT-1…3
    ("blank-file--readme-whitespace", FULL, [write("README.md", "  \n\t\n")]),
    ("blank-file--readme-only-frontmatter", FULL, [write("README.md", "---\ntitle: Release Review\n---\n\n")]),
    ("blank-file--selector", FULL, [write("selector.md", "\n")]),
    ("blank-file--prompt", FULL, [write("agents/builder/system.md", " \n")]),
    ("readme-frontmatter--invalid-yaml", FULL, [write("README.md", "---\ntitle: [unclosed\n---\n\n# Release Review\n")]),
    ("readme-frontmatter--duplicate-key", FULL, [write("README.md", "---\ntitle: a\ntitle: b\n---\n\n# Release Review\n")]),
    ("readme-frontmatter--unknown-engine", FULL, [write("README.md", "--- toml\ntitle = 1\n---\n\n# Release Review\n")]),
    # ROOT-3
    ("unknown-top-level-entry--license", FULL, [write("LICENSE", "MIT\n")]),
    ("unknown-top-level-entry--gitignore", FULL, [write(".gitignore", "node_modules\n")]),
    ("unknown-top-level-entry--docs-directory", FULL, [write("docs/guide.md", "# Guide\n")]),
    ("unknown-top-level-entry--notes", MIN, [write("NOTES.md", "# x\n")]),
    ("wrong-entry-type--readme-directory", FULL, [rm("README.md"), write("README.md/index.md", "# R\n")]),
    ("wrong-entry-type--lib-file", MIN, [write("lib", "x\n")]),
    ("wrong-entry-type--file-in-agents", FULL, [write("agents/notes.md", "# notes\n")]),
    ("wrong-entry-type--tools-subdirectory", FULL, [write("tools/helpers/util.ts", "export const x = 1;\n")]),
    ("wrong-entry-type--agent-lib-file", FULL, [write("agents/reviewer/lib", "x\n")]),
    ("host-metadata-in-source--root", FULL, [write(".opencorvus-meta.json", "{}\n")]),
    ("host-metadata-in-source--empty", MIN, [write(".opencorvus-meta.json", "")]),
    ("host-metadata-in-source--directory", MIN, [write(".opencorvus-meta.json/x", "{}\n")]),
    # FBD-2
    ("runtime-internal-entry--runtime-in-skill", FULL, [write("skills/release-method/references/runtime/notes.md", "x\n")]),
    ("runtime-internal-entry--r-in-lib", FULL, [write("agents/builder/lib/.r/cache.json", "{}\n")]),
    ("runtime-internal-entry--nested-metadata", FULL, [write("skills/release-method/.opencorvus-meta.json", "{}\n")]),
    ("runtime-internal-entry--top-level-worktrees", FULL, [write("worktrees/a.md", "x\n")]),
    ("runtime-internal-entry--opencorvus-directory", FULL, [write("skills/release-method/.opencorvus/x.md", "x\n")]),
    # AGD-1, AGD-2, PROJ-3
    ("undeclared-agent-directory--ghost", FULL, [write("agents/ghost/system.md", "You are a ghost.\n")]),
    ("undeclared-agent-directory--ghost-skill", FULL, [skill("agents/ghost/skills/haunt/SKILL.md", "name: haunt\ndescription: Haunt.\n")]),
    ("undeclared-agent-directory--helper", MIN, [write("agents/helper/system.md", "Helper.\n")]),
    ("unexpected-agent-entry--notes", FULL, [write("agents/builder/notes.md", "x\n")]),
    ("unexpected-agent-entry--assets", FULL, [write("agents/builder/assets/data.json", "{}\n")]),
    ("unexpected-agent-entry--readme", FULL, [write("agents/reviewer/README.md", "x\n")]),
    ("undeclared-prompt--scheduler", FULL, [sub('"prompt": "agents/orchestrator/system.md",', '')]),
    ("undeclared-prompt--agent", FULL, [sub('"prompt": "agents/builder/system.md",', '')]),
    ("undeclared-prompt--minimal-scheduler", MIN, [write("agents/orchestrator/system.md", "You orchestrate.\n")]),
    # SKL-1…SKL-4
    ("skill-layout--loose-file", FULL, [write("skills/notes.md", "x\n")]),
    ("skill-layout--skill-md-at-root", FULL, [skill("skills/SKILL.md", "name: root\ndescription: Root.\n")]),
    ("skill-layout--group-file", FULL, [write("skills/checklists/README.md", "x\n")]),
    ("skill-layout--agent-skills-loose-file", FULL, [write("agents/builder/skills/notes.md", "x\n")]),
    ("skill-unsafe-path--leading-space", FULL, [write("skills/release-method/ notes.md", "x\n")]),
    ("skill-unsafe-path--leading-space-agent-skill", FULL, [write("agents/builder/skills/build-notes/ log.md", "x\n")]),
    ("skill-unsafe-path--leading-no-break-space", FULL, [write("skills/checklists/security/\u00a0extra.md", "x\n")]),
    ("nested-skill-md--in-references", FULL, [skill("skills/release-method/references/SKILL.md", "name: inner\ndescription: Inner.\n")]),
    ("nested-skill-md--lower-case", FULL, [write("skills/release-method/references/skill.md", "x\n")]),
    ("nested-skill-md--mixed-case-deep", FULL, [write("skills/checklists/security/a/Skill.MD", "x\n")]),
    ("skill-not-utf8--latin1", FULL, [write("skills/checklists/security/SKILL.md", b"---\nname: security-checklist\ndescription: Caf\xe9 checks.\n---\n")]),
    ("skill-not-utf8--utf16-bom", FULL, [write("agents/builder/skills/build-notes/SKILL.md", b"\xff\xfe-\x00-\x00-\x00")]),
    ("skill-not-utf8--truncated-sequence-in-body", FULL, [append("skills/release-method/SKILL.md", b"\nEnd \xe2\x82\n")]),
    ("skill-frontmatter--missing", FULL, [write("skills/checklists/security/SKILL.md", "# Security checklist\n")]),
    ("skill-frontmatter--no-description", FULL, [skill("skills/checklists/security/SKILL.md", "name: security-checklist\n")]),
    ("skill-frontmatter--name-with-slash", FULL, [skill("skills/checklists/security/SKILL.md", "name: checklists/security\ndescription: d\n")]),
    ("skill-frontmatter--unknown-required-tool", FULL, [skill("skills/checklists/security/SKILL.md", "name: security-checklist\ndescription: d\nrequired_tools: [read, shell]\n")]),
    ("skill-frontmatter--invalid-yaml", FULL, [skill("skills/checklists/security/SKILL.md", "name: [unclosed\ndescription: d\n")]),
    ("skill-frontmatter--name-is-a-date", FULL, [skill("skills/checklists/security/SKILL.md", "name: 2024-01-01\ndescription: d\n")]),
    ("skill-frontmatter--duplicate-key", FULL, [skill("skills/checklists/security/SKILL.md", "name: security-checklist\ndescription: d\nname: again\n")]),
    ("skill-frontmatter--unknown-tag", FULL, [skill("skills/checklists/security/SKILL.md", "name: security-checklist\ndescription: !important d\n")]),
    ("skill-frontmatter--second-document", FULL, [write("skills/checklists/security/SKILL.md", "---\nname: security-checklist\ndescription: d\n...\nbody\n")]),
    ("skill-frontmatter--name-null", FULL, [skill("skills/checklists/security/SKILL.md", "name:\ndescription: d\n")]),
    # REF-3, REF-4, REF-5
    ("unsupported-tool-extension--mts", FULL, [write("tools/extra.mts", "export default 1;\n")]),
    ("unsupported-tool-extension--markdown", FULL, [write("tools/README.md", "# tools\n")]),
    ("unsupported-tool-extension--agent-tsx", FULL, [write("agents/builder/tools/view.tsx", "export default 1;\n")]),
    ("invalid-tool-id--pascal-case", FULL, [write("tools/Report.ts", "export default 1;\n")]),
    ("invalid-tool-id--test-file", FULL, [write("tools/summarize-changes.test.ts", "export default 1;\n")]),
    ("invalid-tool-id--declaration-file", FULL, [write("tools/types.d.ts", "export {};\n")]),
    ("duplicate-resource--tool-ts-and-js", FULL, [write("tools/summarize-changes.js", "export default 1;\n")]),
    ("duplicate-resource--mcp-json-and-jsonc", FULL, [write("mcp/tracker.json", '{"type": "remote", "url": "https://x.example", "transport": "sse"}\n')]),
    ("duplicate-resource--agent-tool-ts-and-js", FULL, [write("agents/builder/tools/check-build.js", "export default 1;\n")]),
    ("unsupported-mcp-extension--yaml", FULL, [write("mcp/wiki.yaml", "type: remote\n")]),
    ("unsupported-mcp-extension--agent-text", FULL, [write("agents/reviewer/mcp/notes.txt", "x\n")]),
    ("unsupported-mcp-extension--no-extension", FULL, [write("mcp/wiki", "{}\n")]),
    ("invalid-url--ftp", FULL, [sub('"url": "https://tracker.example/mcp"', '"url": "ftp://tracker.example/mcp"', "mcp/tracker.jsonc")]),
    ("invalid-url--not-a-url", FULL, [sub('"url": "https://tracker.example/mcp"', '"url": "tracker"', "mcp/tracker.jsonc")]),
    ("invalid-url--javascript", FULL, [sub('"url": "https://evidence.example/mcp"', '"url": "javascript:alert(1)"', "agents/reviewer/mcp/evidence.json")]),
    ("invalid-resource-name--capability-slash", FULL, [sub('"resources": ["ledger"]', '"resources": ["ledger", "a/b"]', "agents/reviewer/mcp/evidence.json")]),
    ("invalid-resource-name--capability-backslash", FULL, [sub('"prompts": []', '"prompts": ["a\\\\b"]', "mcp/tracker.jsonc")]),
    ("invalid-resource-name--tool-backslash", FULL, [sub('"tools": ["list_issues"]', '"tools": ["list_issues", "x\\\\y"]', "mcp/tracker.jsonc")]),
    # TL-2…TL-4
    ("import-crosses-boundary--sibling-tool", FULL, [imports('import "./helper";')]),
    ("import-crosses-boundary--skill-file", FULL, [imports('import text from "../skills/release-method/references/evidence.md";\nexport const evidence = text;')]),
    ("import-crosses-boundary--other-agent-lib", FULL, [imports('import { digestLabel } from "../agents/builder/lib/digest";\nexport const label = digestLabel;')]),
    ("import-crosses-boundary--manifest", FULL, [imports('import manifest from "../../../expert-squad.jsonc";\nexport const raw = manifest;', AGENT_TOOL)]),
    ("import-crosses-boundary--outside-package", FULL, [imports('import x from "../../secret.ts";\nexport const secret = x;')]),
    ("unsupported-module--fs-without-node-prefix", FULL, [imports('import { readFileSync } from "fs";\nexport const read = readFileSync;')]),
    ("unsupported-module--child-process", FULL, [imports('import { exec } from "node:child_process";\nexport const run = exec;', AGENT_TOOL)]),
    ("unsupported-module--zod", FULL, [imports('import { z } from "zod";\nexport const schema = z.string();')]),
    ("unsupported-module--require-in-lib", FULL, [prepend("lib/format.ts", 'const _ = require("lodash");\n')]),
    ("unsupported-module--unused-import", FULL, [imports('import { z } from "zod";')]),
    ("unsupported-module--inline-type-specifier", FULL, [imports('import { type ToolContext } from "@opencorvus-ai/plugin/tool";')]),
    ("import-crosses-boundary--unused-in-javascript", FULL, [write("tools/probe.js", 'import { q } from "../skills/release-method/references/evidence.md";\nexport default 1;\n'), sub('"package_tool_refs": ["release-review/shared/summarize-changes", "release-review/builder/check-build"]', '"package_tool_refs": ["release-review/shared/summarize-changes", "release-review/builder/check-build", "release-review/shared/probe"]')]),
    ("unsupported-module--plugin-subpath", FULL, [imports('export { tool as t } from "@opencorvus-ai/plugin/tool";')]),
    ("unsupported-import-extension--csv", FULL, [write("lib/data.csv", "a,b\n"), imports('import data from "../lib/data.csv";\nexport const rows = data;')]),
    ("unsupported-import-extension--png-asset", FULL, [write("assets/logo.png", "PNG"), imports('import logo from "../assets/logo.png";\nexport const image = logo;')]),
    ("unsupported-import-extension--mjs-lib", FULL, [write("lib/extra.mjs", "export const x = 1;\n"), imports('import { x } from "../lib/extra.mjs";\nexport const extra = x;')]),
    ("non-literal-import--dynamic-import", FULL, [append(TOOL, 'export async function load(name: string) { return import(name); }\n')]),
    ("non-literal-import--require-variable", FULL, [append("lib/format.ts", 'export const loader = (m: string) => require(m);\n')]),
    ("non-literal-import--template-substitution", FULL, [append(AGENT_TOOL, 'export const later = (v: string) => import(`../lib/${v}`);\n')]),
    ("absolute-import--unix-path", FULL, [imports('import "/etc/hosts";')]),
    ("absolute-import--file-url", FULL, [imports('import x from "file:///tmp/x.ts";\nexport const file = x;')]),
    ("absolute-import--windows-drive", FULL, [imports('import x from "C:\\\\tools\\\\x.ts";\nexport const windows = x;')]),
    ("unresolved-import--missing-lib", FULL, [imports('import { y } from "../lib/missing";\nexport const missing = y;')]),
    ("unresolved-import--json-without-extension", FULL, [write("lib/data.json", "{}\n"), imports('import data from "../lib/data";\nexport const first = data;'), imports('import data2 from "../lib/data.json";\nexport const second = data2;')]),
    ("unresolved-import--missing-asset", FULL, [imports('import page from "../assets/page.html";\nexport const html = page;')]),
    # LIB-1, AST-1
    ("unreachable-library-file--unused-lib", FULL, [write("lib/unused.ts", "export const unused = 1;\n")]),
    ("unreachable-library-file--gitkeep", FULL, [write("lib/.gitkeep", "")]),
    ("unreachable-library-file--agent-lib", FULL, [write("agents/builder/lib/old.ts", "export {};\n")]),
    ("unreachable-library-file--type-only-import", FULL, [write("lib/shapes.ts", "export interface Shape { kind: string }\n"), imports('import type { Shape } from "../lib/shapes";')]),
    ("unreachable-library-file--unused-binding", FULL, [write("lib/extra.ts", "export const q = 1;\n"), imports('import { q } from "../lib/extra";')]),
    ("unreachable-library-file--type-specifier-only", FULL, [write("lib/extra.ts", "export interface Q { a: string }\n"), imports('import { type Q } from "../lib/extra";\nexport type R = Q;')]),
    ("unreachable-asset--unused-template", FULL, [write("assets/unused.md", "# unused\n")]),
    ("unreachable-asset--ds-store", FULL, [write("assets/.DS_Store", "\0\0")]),
    ("unreachable-asset--nested", FULL, [write("assets/report/old/template.md", "# old\n")]),
    # PATH-S
    ("non-portable-path--colon", FULL, [write("skills/release-method/references/a:b.md", "x\n")]),
    ("non-portable-path--windows-device-name", FULL, [write("skills/release-method/references/nul.txt", "x\n")]),
    ("non-portable-path--trailing-dot", FULL, [write("skills/release-method/references/notes.", "x\n")]),
    ("non-portable-path--nfd-name", FULL, [write("skills/release-method/references/cafe\u0301.md", "x\n")]),
    ("non-portable-path--question-mark", FULL, [write("skills/release-method/references/why?.md", "x\n")]),
    ("path-case-collision--skill-reference", FULL, [write("skills/release-method/references/Evidence.md", "x\n")]),
    ("path-case-collision--lib", FULL, [write("lib/Format.ts", "export {};\n"), imports('import "../lib/Format";')]),
    ("path-case-collision--directory-case", FULL, [write("skills/release-method/References/more.md", "x\n")]),
]

# Variants the reference accepts although they look wrong; each must validate without errors.
ACCEPTED = [
    ("accepted--duplicate-key-warning", MIN, [sub('"label": "Minimal",', '"label": "First", "label": "Minimal",')]),
    ("accepted--builtin-id-warning", MIN, [sub('"id": "minimal-squad"', '"id": "base"')]),
    ("accepted--label-only-whitespace", MIN, [sub('"label": "Minimal"', '"label": " "')]),
    ("accepted--agent-label-padded", MIN, [sub('"label": "Worker"', '"label": "  Worker  "')]),
    ("accepted--node-ids-with-reserved-names", MIN, [sub('"virtual_workflows": {}', '"virtual_workflows": { "shared": { "label": "L", "description": "d", "nodes": { "orchestrator": { "agent_id": "worker", "description": "d", "depends_on": [] }, "universal-build": { "agent_id": "worker", "description": "d", "depends_on": ["orchestrator"] } } } }')]),
    ("accepted--description-empty", MIN, [sub('"label": "Minimal",', '"label": "Minimal", "description": "",')]),
    ("accepted--escaped-key-and-one-point-zero", MIN, [sub('"schema_version": 1, "namespace": "acme", "id"', '"schema_version": 1.0, "namespace": "acme", "\\u0069d"')]),
    ("accepted--depends-on-code-unit-order", MIN, [sub('"virtual_workflows": {}', '"virtual_workflows": { "flow": { "label": "L", "description": "d", "nodes": { "a": { "agent_id": "worker", "description": "d", "depends_on": [] }, "a-b": { "agent_id": "worker", "description": "d", "depends_on": [] }, "a0": { "agent_id": "worker", "description": "d", "depends_on": [] }, "ab": { "agent_id": "worker", "description": "d", "depends_on": [] }, "z": { "agent_id": "worker", "description": "d", "depends_on": ["a", "a-b", "a0", "ab"] } } } }')]),
    ("accepted--leap-day-and-year-0100", MIN, [sub('"version": "2026.08.20.1"', '"version": "2024.02.29.123456789012345678901"')]),
    ("accepted--year-0100", MIN, [sub('"version": "2026.08.20.1"', '"version": "0100.01.01.1"')]),
    ("accepted--nested-skill-group", FULL, [write("skills/checklists/privacy/SKILL.md", "---\nname: privacy-checklist\ndescription: Privacy checks.\n---\n"), sub('"release-review/shared/checklists/security"]', '"release-review/shared/checklists/privacy", "release-review/shared/checklists/security"]')]),
    ("accepted--js-tool-and-json-mcp", MIN, [write("tools/ping.js", 'import { tool } from "@opencorvus-ai/plugin";\nexport default tool({ description: "ping", args: {}, async execute() { return "pong"; } });\n'), write("mcp/Docs Server.json", '{"type": "remote", "url": "http://docs.example:8080/mcp", "transport": "sse", "capabilities": {"tools": ["search docs", "v1.read"]}}\n'), sub('"package_tool_refs": [],\n        "default_mcp_server_refs": [], "package_mcp_server_refs": []', '"package_tool_refs": ["minimal-squad/shared/ping"],\n        "default_mcp_server_refs": [], "package_mcp_server_refs": ["minimal-squad/shared/Docs Server"]')]),
    ("accepted--readme-with-frontmatter", MIN, [write("README.md", "---\ntitle: Minimal\n---\n\n# Minimal\n\nDispatch the worker.\n")]),
    ("accepted--crlf-line-endings", MIN, [("crlf", "expert-squad.jsonc"), ("crlf", "README.md")]),
    ("accepted--artifact-tools-in-built-ins", MIN, [sub('"built_in_tool_ids": [],\n        "default_skill_refs"', '"built_in_tool_ids": ["artifact_publish", "work_artifact_author"],\n        "default_skill_refs"')]),
    ("accepted--skill-name-conflict-warning", FULL, [write("skills/checklists/security/SKILL.md", "---\nname: release-method\ndescription: Security checks every release must pass.\n---\n")]),
    ("accepted--default-refs", FULL, [sub('"default_skill_refs": ["default/skill/writing"]', '"default_skill_refs": ["default/skill/writing", "default/skill/Any Name.v2"]'), sub('"default_mcp_prompt_refs": [],\n        "package_mcp_prompt_refs": ["release-review/reviewer', '"default_mcp_prompt_refs": ["default/mcp/github/prompt/triage"],\n        "package_mcp_prompt_refs": ["release-review/reviewer')]),
    ("accepted--visual-qa-default-tool", MIN, [sub('"base_role": "build"', '"base_role": "visual-qa"'), sub('"default_tool_refs": [], "package_tool_refs": [],\n        "default_mcp_server_refs"', '"default_tool_refs": ["default/tool/browser_preview_layout_geometry"], "package_tool_refs": [],\n        "default_mcp_server_refs"')]),
    ("accepted--long-path-warning", FULL, [write("skills/release-method/references/" + "/".join(["deep-directory-name-%02d" % i for i in range(10)]) + "/notes.md", "x\n")]),
    ("accepted--readme-closing-line-content", MIN, [write("README.md", "---\ntitle: Minimal\n--- Dispatch the worker.\n")]),
    ("accepted--frontmatter-tab-after-colon", FULL, [write("skills/checklists/security/SKILL.md", "---\nname:\tsecurity-checklist\ndescription:\t'Security checks.'\n---\n")]),
    ("accepted--frontmatter-merge-key-and-json", FULL, [write("skills/checklists/security/SKILL.md", "---\nbase: &base {license: MIT}\nmetadata:\n  <<: *base\nname: security-checklist\ndescription: d\n---\n"), write("agents/builder/skills/build-notes/SKILL.md", "---json\n{\"name\": \"build-notes\", \"description\": \"Build notes.\"}\n---\n")]),
    ("accepted--upper-case-asset-extension", FULL, [write("assets/page.HTML", "<p>x</p>\n"), prepend(TOOL, 'import page from "../assets/page.HTML";\nexport const pageLength = page.length;\n')]),
    ("accepted--unused-import-is-elided", FULL, [imports('import unused from "../skills/release-method/SKILL.md";')]),
    ("accepted--lib-directory-index", FULL, [write("lib/index.ts", 'export * from "./format";\n'), sub('import { formatList } from "../lib/format";', 'import { formatList } from "../lib";', TOOL)]),
    ("accepted--non-null-assertion-division", FULL, [append("lib/format.ts", 'export const average = (totals: Map<string, number>, key: string, runs: number) => totals.get(key)! / runs;\nexport const label = (n: number) => `${n} ms/run`;\n')]),
    ("accepted--javascript-keeps-unused-import", FULL, [write("lib/extra.ts", "export const q = 1;\n"), write("tools/probe.js", 'import { q } from "../lib/extra.js";\nexport default 1;\n'), sub('"package_tool_refs": ["release-review/shared/summarize-changes", "release-review/builder/check-build"]', '"package_tool_refs": ["release-review/shared/summarize-changes", "release-review/builder/check-build", "release-review/shared/probe"]')]),
    ("accepted--empty-optional-objects", MIN, [sub('"readme": "README.md",', '"readme": "README.md", "system_role": "expert_squad_generator", "name": "Minimal Squad",')]),
]


def apply(directory, operation):
    kind = operation[0]
    if kind == "sub":
        _, path, old, new = operation
        full = os.path.join(directory, path)
        with open(full, encoding="utf-8") as handle:
            text = handle.read()
        if text.count(old) != 1:
            raise SystemExit("%s: expected exactly one %r in %s, found %d" % (directory, old, path, text.count(old)))
        with open(full, "w", encoding="utf-8", newline="") as handle:
            handle.write(text.replace(old, new))
    elif kind in ("write", "prepend", "append"):
        _, path, content = operation
        full = os.path.join(directory, path)
        os.makedirs(os.path.dirname(full), exist_ok=True)
        data = content if isinstance(content, bytes) else content.encode("utf-8")
        if kind != "write":
            with open(full, "rb") as handle:
                existing = handle.read()
            data = data + existing if kind == "prepend" else existing + data
        with open(full, "wb") as handle:
            handle.write(data)
    elif kind == "crlf":
        full = os.path.join(directory, operation[1])
        with open(full, "rb") as handle:
            data = handle.read()
        with open(full, "wb") as handle:
            handle.write(data.replace(b"\r\n", b"\n").replace(b"\n", b"\r\n"))
    elif kind == "rm":
        os.remove(os.path.join(directory, operation[1]))
    else:
        raise SystemExit("unknown operation %r" % (kind,))


def main():
    invalid = os.path.join(ROOT, "invalid")
    valid = os.path.join(ROOT, "valid")
    os.makedirs(invalid, exist_ok=True)
    # Case directories are rebuilt; their *.diagnostics.json snapshots stay for review.
    for directory, generated in ((invalid, lambda name: True), (valid, lambda name: name.startswith("accepted--"))):
        for name in os.listdir(directory):
            path = os.path.join(directory, name)
            if os.path.isdir(path) and generated(name):
                shutil.rmtree(path)
    names = set()
    for directory, cases in ((invalid, CASES), (valid, ACCEPTED)):
        for name, base, operations in cases:
            if name in names:
                raise SystemExit("duplicate case " + name)
            names.add(name)
            target = os.path.join(directory, name)
            shutil.copytree(os.path.join(valid, base), target)
            for operation in operations:
                apply(target, operation)
    print("wrote %d invalid and %d accepted cases" % (len(CASES), len(ACCEPTED)))


if __name__ == "__main__":
    main()
