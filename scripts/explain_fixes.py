"""The "Fixed" sections of the package codes' explain pages, used by make-explain-pages.py:
what to change, shown as the file before and after, in the words of someone fixing it. Codes
that `squad fix` resolves say so.
"""


def before_after(file, before, after, lang="jsonc", intro=None, outro=None):
    parts = []
    if intro:
        parts += [intro, ""]
    parts += [f"Before, in `{file}`:", "", f"```{lang}", before.strip("\n"), "```", "",
              "After:", "", f"```{lang}", after.strip("\n"), "```"]
    if outro:
        parts += ["", outro]
    return "\n".join(parts)


def shell(intro, commands, outro=None):
    parts = [intro, "", "```sh", commands.strip("\n"), "```"]
    if outro:
        parts += ["", outro]
    return "\n".join(parts)


FIX_COMMAND = "`squad fix` makes this change for you (`squad fix --dry-run` shows it first)."

M = "expert-squad.jsonc"

FIXES = {
    "jsonc-syntax": before_after(M, """
{
  "namespace": "acme"
  "id": "postmortem",
""", """
{
  "namespace": "acme",
  "id": "postmortem",
""", intro="Write plain JSON plus `//` and `/* */` comments and trailing commas: double quotes around every key and string, a comma between members, no byte order mark. The caret sits where the parser gave up; a missing comma is shown at the end of the line that needs it.",
        outro="A missing comma is the one syntax error `squad fix` repairs; for the others, edit the file at the caret."),
    "duplicate-key": before_after(M, """
"label": "Postmortem",
"description": "Incident reviews.",
"label": "Incident Postmortem",
""", """
"label": "Incident Postmortem",
"description": "Incident reviews.",
""", intro="Keep one of the two members. The last one is the one that counts today, so keep its value unless the first was the one you meant."),
    "invalid-utf8": "Save the file as UTF-8 (most editors have an *encoding* setting; `iconv -f latin1 -t utf-8 README.md > README.new && mv README.new README.md` converts a Latin-1 file). The warning names the file; look for characters shown as `\uFFFD`.",
    "unreadable": shell("Give the user running `squad` read access to the file or directory named in the message:", "chmod u+r skills/triage/SKILL.md\nchmod u+rx skills/triage"),
    "unknown-field": before_after(M, """
"triage-analyst": {
  "lable": "Triage Analyst",
  "status": "active",
""", """
"triage-analyst": {
  "label": "Triage Analyst",
""", intro="Rename a misspelt key to the one the format knows, and remove keys the format has no place for (there is no `status`, `enabled` or top-level `agents`). The `help:` line names the close match, or lists the keys the object allows.",
        outro="`squad fix` renames a key that has exactly one close match and is not set already."),
    "missing-field": before_after(M, """
"writer": {
  "label": "Writer",
  "base_role": "build",
  "inherit_base_tools": true,
  "built_in_tool_ids": [],
  "default_skill_refs": [],
  "package_skill_refs": []
}
""", """
"writer": {
  "label": "Writer",
  "base_role": "build",
  "inherit_base_tools": true,
  "built_in_tool_ids": [],
  "default_skill_refs": [],
  "package_skill_refs": [],
  "default_tool_refs": [],
  "package_tool_refs": [],
  "default_mcp_server_refs": [],
  "package_mcp_server_refs": [],
  "default_mcp_tool_refs": [],
  "package_mcp_tool_refs": [],
  "default_mcp_prompt_refs": [],
  "package_mcp_prompt_refs": [],
  "default_mcp_resource_refs": [],
  "package_mcp_resource_refs": []
}
""", intro="Add the key. Every scheduler and agent lists all 13 resource arrays and `inherit_base_tools`, even when an array is empty; `squad scaffold agent` writes a complete agent for you.",
        outro="`squad fix` adds a missing resource array as `[]`. Other missing keys (`label`, `selector`, …) need your words."),
    "wrong-type": before_after(M, """
"schema_version": "1",
"description": null,
""", """
"schema_version": 1,
""", intro="Write the value with the type the format wants, and leave optional fields out instead of setting them to `null`.",
        outro="`squad fix` turns `\"1\"` into `1` for `schema_version`."),
    "invalid-literal": before_after(M, """
"readme": "docs/README.md",
"selector": { "summary": "…", "selection_guidance": "…", "instructions": "SELECTOR.md" },
""", """
"readme": "README.md",
"selector": { "summary": "…", "selection_guidance": "…", "instructions": "selector.md" },
""", intro="Write the one value the field allows (or one of its few): `readme` is always `README.md`, `selector.instructions` always `selector.md`, the scheduler's `base_role` always `orchestrator`.",
        outro=FIX_COMMAND),
    "blank-string": before_after(M, """
"label": "",
""", """
"label": "Incident Postmortem",
""", intro="Say something: labels, descriptions and selector texts are shown to people or read by the Orchestrator."),
    "invalid-id": before_after(M, """
"namespace": "Acme Team",
"virtual_workflows": {
  "Incident_Review": {
""", """
"namespace": "acme-team",
"virtual_workflows": {
  "incident-review": {
""", intro="Write ids in lower-kebab-case: lower-case letters and digits, words joined by single hyphens, starting with a letter, at most 64 characters.",
        outro="`squad fix` renames a namespace, a workflow or a node (and every `depends_on` that names it). Renaming the package id or an agent moves files and refs: do it by hand, with `squad validate` to find what still uses the old name."),
    "reserved-id": before_after(M, """
"agents": {
  "orchestrator": { "label": "Lead", "base_role": "build", … }
""", """
"agents": {
  "lead": { "label": "Lead", "base_role": "build", … }
""", intro="Pick another id. The scheduler is declared under `scheduler`, not as an agent; `shared` and `universal-build` are taken by the runtime, and `runtime` and `worktrees` cannot be a namespace or package id.",
        outro="Rename the agent's folder `agents/<id>/` and its `prompt` path with it."),
    "builtin-id-collision": before_after(M, """
"id": "base",
""", """
"id": "acme-base",
""", intro="Choose an id that is not one of the packages built into OpenCorvus (`base`, `advanced`, `research-studio`, `squad-sdk`), and change the prefix of every package ref with it."),
    "invalid-version": before_after(M, """
"version": "2026.12.1.1",
""", """
"version": "2026.12.01.1",
""", intro="Write `YYYY.MM.DD.N`: four-digit year, two-digit month and day, and a revision from 1 without leading zeros.",
        outro="`squad fix` adds the missing zeros; `squad version bump` stamps today's date instead."),
    "invalid-version-date": before_after(M, """
"version": "2026.02.30.1",
""", """
"version": "2026.03.01.1",
""", intro="Use a date that exists (and a year from 0100 on). `squad version bump` writes today's UTC date with the next revision."),
    "empty-list": before_after(M, """
"product_pillars": [],
""", """
"product_pillars": ["work"],
""", intro="Give the list an element: `product_pillars` is `[\"code\"]`, `[\"work\"]` or `[\"code\", \"work\"]`; a workflow needs a node; `configuration.fields` needs a field (or leave `configuration` out)."),
    "duplicate-entry": before_after(M, """
"package_skill_refs": ["postmortem/shared/triage", "postmortem/shared/triage"],
""", """
"package_skill_refs": ["postmortem/shared/triage"],
""", intro="Remove the repeat.", outro=FIX_COMMAND),
    "unsorted-list": before_after(M, """
"depends_on": ["timeline", "impact"]
""", """
"depends_on": ["impact", "timeline"]
""", intro="Sort the list (code-unit order: `-` before digits before letters). The `help:` line writes the sorted list out.",
        outro=FIX_COMMAND),
    "unknown-base-role": before_after(M, """
"base_role": "researcher",
""", """
"base_role": "deep-research",
""", intro="Use one of the 13 runtime templates: `delegated-worker`, `intent-analysis`, `requirements`, `architect`, `goal-workload-analyst`, `build`, `explore`, `deep-research`, `frontend-research`, `frontend-design`, `visual-qa`, `integrity`, `fact-check`. The role decides which built-in tools the agent may project (docs/authoring.md lists them).",
        outro="`squad fix` corrects a role with exactly one close match (`fact-checker` -> `fact-check`)."),
    "execution-contract-mismatch": before_after(M, """
"reviewer": {
  "label": "Reviewer",
  "base_role": "integrity",
  "prompt": "agents/reviewer/system.md",
""", """
"reviewer": {
  "label": "Reviewer",
  "base_role": "integrity",
  "execution_contract": "platform_integrity_review",
  "prompt": "agents/reviewer/system.md",
""", intro="An `integrity` agent says `\"execution_contract\": \"platform_integrity_review\"`; no other agent may have an `execution_contract`.",
        outro="`squad fix` adds the missing contract to an integrity agent."),
    "invalid-prompt-path": before_after(M, """
"writer": { …, "prompt": "prompts/writer.md", … }
""", """
"writer": { …, "prompt": "agents/writer/system.md", … }
""", intro="Point `prompt` at `agents/<agent id>/system.md` (the scheduler's is `agents/orchestrator/system.md`) and move the file there.",
        outro="`squad fix` rewrites the path; moving the file is yours."),
    "unknown-built-in-tool": before_after(M, """
"built_in_tool_ids": ["reed", "websearch"],
""", """
"built_in_tool_ids": ["read", "websearch"],
""", intro="Use a core tool id of the runtime (docs/authoring.md lists the tools each base role supplies).",
        outro="`squad fix` corrects an id with exactly one close match."),
    "tool-not-supplied-by-role": before_after(M, """
"analyst": { "base_role": "requirements", …, "built_in_tool_ids": ["read", "bash"], … }
""", """
"analyst": { "base_role": "requirements", …, "built_in_tool_ids": ["read"], … }
""", intro="Remove the tool, or give the agent a base role that supplies it (`build` supplies `bash`). The `help:` line lists what the role can project."),
    "invalid-default-ref": before_after(M, """
"default_skill_refs": ["default/skills/writing"],
""", """
"default_skill_refs": ["default/skill/writing"],
""", intro="Write host refs as `default/skill/<name>`, `default/tool/<name>` or `default/mcp/<server>/tool|prompt|resource/<name>`."),
    "unknown-default-tool": before_after(M, """
"default_tool_refs": ["default/tool/webpage_extrct"],
""", """
"default_tool_refs": ["default/tool/webpage_extract"],
""", intro="Name one of the nine default host tools (and only from the role that supplies it: `frontend-research`, `frontend-design` or `visual-qa`).",
        outro="`squad fix` corrects a name with exactly one close match."),
    "default-mcp-server-unsupported": before_after(M, """
"default_mcp_server_refs": ["default/mcp/github"],
"default_mcp_tool_refs": [],
""", """
"default_mcp_server_refs": [],
"default_mcp_tool_refs": ["default/mcp/github/tool/search_issues"],
""", intro="Leave `default_mcp_server_refs` empty and list the host server's tools, prompts or resources you need one by one."),
    "foreign-package-ref": before_after(M, """
"package_skill_refs": ["acme/shared/triage"],
""", """
"package_skill_refs": ["postmortem/shared/triage"],
""", intro="Start package refs with this package's `id` (not its namespace, not another package's id)."),
    "dangling-ref": before_after(M, """
"package_skill_refs": ["postmortem/shared/timeline-method"],
""", """
"package_skill_refs": ["postmortem/shared/timeline"],
""", intro="Correct the ref to a resource that exists, or create the resource: `squad scaffold skill timeline-method` writes `skills/timeline-method/SKILL.md` and projects it.",
        outro="The `help:` line suggests the one close match when there is one; `squad fix` does not apply it on its own, because the file may simply not be written yet."),
    "ref-not-owned": before_after(M, """
"reviewer": { …, "package_skill_refs": ["postmortem/writer/style-guide"], … }
""", """
"reviewer": { …, "package_skill_refs": ["postmortem/shared/style-guide"], … }
""", intro="Share the resource (move `agents/writer/skills/style-guide/` to `skills/style-guide/`) and use its shared ref, or leave it to its owner."),
    "mcp-mounted-twice": before_after(M, """
"package_mcp_server_refs": ["postmortem/shared/tracker"],
"package_mcp_tool_refs": ["postmortem/shared/tracker/tool/list_issues"],
""", """
"package_mcp_server_refs": ["postmortem/shared/tracker"],
"package_mcp_tool_refs": [],
""", intro="Mount the whole server, or list some of its capabilities, not both in one projection."),
    "unprojected-resource": before_after(M, """
"writer": { …, "package_skill_refs": [], … }
""", """
"writer": { …, "package_skill_refs": ["postmortem/shared/timeline"], … }
""", intro="Project the resource by an agent that uses it (an agent-local one by its owner), or delete its file if nobody needs it. `squad scaffold skill|tool|mcp` creates and projects in one step."),
    "unknown-agent": before_after(M, """
"draft": { "agent_id": "writter", "description": "Write the draft.", "depends_on": [] }
""", """
"draft": { "agent_id": "writer", "description": "Write the draft.", "depends_on": [] }
""", intro="Name an agent declared under `capability_projection.agents`, or declare it (`squad scaffold agent writer --role build`). The scheduler cannot be a node.",
        outro="`squad fix` corrects a name with exactly one close match."),
    "unknown-dependency": before_after(M, """
"review": { "agent_id": "reviewer", "description": "Review.", "depends_on": ["drafts"] }
""", """
"review": { "agent_id": "reviewer", "description": "Review.", "depends_on": ["draft"] }
""", intro="Depend on a node of the same workflow.", outro="`squad fix` corrects a node id with exactly one close match."),
    "self-dependency": before_after(M, """
"draft": { "agent_id": "writer", "description": "Write the draft.", "depends_on": ["draft", "impact"] }
""", """
"draft": { "agent_id": "writer", "description": "Write the draft.", "depends_on": ["impact"] }
""", intro="Remove the node's own id from its `depends_on`."),
    "dependency-cycle": before_after(M, """
"draft":  { "agent_id": "writer",   "description": "Write the draft.",  "depends_on": ["review"] },
"review": { "agent_id": "reviewer", "description": "Review the draft.", "depends_on": ["draft"] }
""", """
"draft":  { "agent_id": "writer",   "description": "Write the draft.",  "depends_on": [] },
"review": { "agent_id": "reviewer", "description": "Review the draft.", "depends_on": ["draft"] }
""", intro="Remove one dependency of the cycle the message prints (each arrow reads \"depends on\"); the caret is on the entry that closes it. If two nodes really need each other's work, make them one node, or split one of them into a step before and a step after."),
    "unused-agent": before_after(M, """
"nodes": {
  "draft":  { "agent_id": "writer",   "description": "Write the draft.",  "depends_on": [] }
}
""", """
"nodes": {
  "draft":  { "agent_id": "writer",   "description": "Write the draft.",  "depends_on": [] },
  "review": { "agent_id": "reviewer", "description": "Review the draft.", "depends_on": ["draft"] }
}
""", intro="Add the agent to a workflow (`squad scaffold workflow respond --agent reviewer --depends-on draft` writes the node), or remove the agent and its `agents/<id>/` folder if the squad does not need it."),
    "missing-file": shell("Create the file the message names. A package needs `expert-squad.jsonc`, `README.md` and `selector.md` at its root, and every declared `prompt`:", "printf '# Incident Postmortem\\n\\nRun blameless postmortems.\\n' > README.md\nprintf 'Choose this squad for incident reviews.\\n' > selector.md",
        "A folder with no `expert-squad.jsonc` at all is no package: `squad new DIR --namespace NS` starts one."),
    "readme-frontmatter": before_after("README.md", """
---
title: Incident: Postmortem
---
# Incident Postmortem
""", """
---
title: "Incident: Postmortem"
---
# Incident Postmortem
""", lang="markdown", intro="Make the YAML between the `---` lines parse (quote values that hold `: `), or remove the block."),
    "blank-file": before_after("agents/writer/system.md", "\n\n", """
You are the Writer of the postmortem squad. Draft the postmortem from the timeline and the
impact analysis, and report what is still unknown.
""", lang="markdown", intro="Write the text: README.md (after its frontmatter), selector.md and every prompt are read by the runtime."),
    "unknown-top-level-entry": shell("Move the entry out of the package folder (keep the package in a folder of its own inside your repository, with LICENSE and docs beside it), or into one of the allowed folders:", "mkdir -p ../postmortem-extras && git mv LICENSE ../postmortem-extras/",
        "The package root holds only `expert-squad.jsonc`, `README.md`, `selector.md` and the folders `agents/`, `skills/`, `tools/`, `mcp/`, `lib/`, `assets/`. State the licence in README.md; a skill may carry a `license:` in its frontmatter and a LICENSE file inside its folder."),
    "wrong-entry-type": shell("Make the entry the kind the format expects: `README.md` and `system.md` are files, `agents/`, `skills/`, `tools/`, `mcp/`, `lib/` and `assets/` are folders, and `tools/` and `mcp/` hold files only:", "mv README.md/index.md README.tmp && rmdir README.md && mv README.tmp README.md"),
    "host-metadata-in-source": shell("Delete the installer's metadata file; it belongs to installed copies only:", "rm .opencorvus-meta.json"),
    "runtime-internal-entry": shell("Rename the folder: `.opencorvus`, `.r`, `runtime` and `worktrees` are the runtime's, at any depth:", "git mv skills/triage/references/runtime skills/triage/references/runtime-notes"),
    "symlink": shell("Replace the link with a copy of what it points to:", 'cp --remove-destination "$(readlink -f skills/triage/shared.md)" skills/triage/shared.md'),
    "special-file": shell("Remove the FIFO, socket or device file from the package:", "rm agents/writer/pipe"),
    "undeclared-agent-directory": before_after(M, """
"agents": {
  "writer": { … }
}
""", """
"agents": {
  "writer": { … },
  "reviewer": { "label": "Reviewer", "base_role": "fact-check", "prompt": "agents/reviewer/system.md", … }
}
""", intro="Declare the agent the folder belongs to, or remove the folder (`agents/orchestrator/` is the scheduler's and needs no declaration). `squad scaffold agent` declares an agent and writes its prompt in one step."),
    "unexpected-agent-entry": shell("Move the file where it belongs: an agent folder holds only `system.md`, `skills/`, `tools/`, `mcp/` and `lib/`. Notes for the model go into a skill:", "mkdir -p agents/writer/skills/notes\ngit mv agents/writer/notes.md agents/writer/skills/notes/reference.md",
        "then give `agents/writer/skills/notes/` a SKILL.md (`squad scaffold skill notes --agent writer`) and project it."),
    "undeclared-prompt": before_after(M, """
"writer": { "label": "Writer", "base_role": "build", … }
""", """
"writer": { "label": "Writer", "base_role": "build", "prompt": "agents/writer/system.md", … }
""", intro="Declare the prompt on its projection (the scheduler's for `agents/orchestrator/system.md`), or delete the file."),
    "skill-layout": shell("Put the file inside a skill folder, one that holds a SKILL.md:", "mkdir -p skills/incident-notes\ngit mv skills/notes.md skills/incident-notes/reference.md",
        "and give the folder its SKILL.md (`squad scaffold skill incident-notes` writes one and projects the skill)."),
    "skill-unsafe-path": shell("Rename the file without leading or trailing spaces:", 'git mv "skills/triage/ notes.md" skills/triage/notes.md'),
    "nested-skill-md": shell("Rename the second `skill.md`: a skill has one SKILL.md, at its top:", "git mv skills/triage/references/SKILL.md skills/triage/references/triage-reference.md"),
    "skill-not-utf8": shell("Convert SKILL.md to UTF-8:", "iconv -f latin1 -t utf-8 skills/triage/SKILL.md > /tmp/SKILL.md && mv /tmp/SKILL.md skills/triage/SKILL.md"),
    "skill-frontmatter": before_after("skills/triage/SKILL.md", """
# Triage

How to triage an incident.
""", """
---
name: triage
description: How to triage an incident by impact and urgency.
---

# Triage

How to triage an incident.
""", lang="markdown", intro="Start SKILL.md with a YAML block that has a `name` (the folder's name is the usual choice) and a `description` that says when to use the skill."),
    "skill-name-conflict": before_after("skills/checklists/security/SKILL.md", """
---
name: release-method
description: Security checks before a release.
---
""", """
---
name: security-checklist
description: Security checks before a release.
---
""", lang="markdown", intro="Give each skill a name of its own: the runtime refuses to give one agent two skills with the same name."),
    "skill-name-style": before_after("skills/timeline-method/SKILL.md", """
---
name: delivery-method
description: How to build an incident timeline.
---
""", """
---
name: timeline-method
description: How to build an incident timeline.
---
""", lang="markdown", intro="Name the skill after its folder, or `<prefix>-<folder>` (a copied skill that kept the name of the one it was copied from is the usual cause), in lower-kebab-case."),
    "unsupported-tool-extension": shell("Give the tool a `.ts` or `.js` name, or move what is not a tool out of `tools/`:", "git mv tools/summarize.mts tools/summarize.ts"),
    "invalid-tool-id": shell("Rename the file to a lower-kebab-case id (it is the tool's id), and change the refs that name it:", "git mv tools/SummarizeTimeline.ts tools/summarize-timeline.ts"),
    "unsupported-mcp-extension": shell("Write MCP declarations as JSON or JSONC:", "git mv mcp/wiki.yaml mcp/wiki.jsonc   # then rewrite its content as JSON"),
    "invalid-resource-name": before_after("mcp/tracker.jsonc", """
"capabilities": { "tools": ["issues/list"] }
""", """
"capabilities": { "tools": ["list_issues"] }
""", intro="Name servers and capabilities without `/` or `\\` (they become parts of refs)."),
    "duplicate-resource": shell("Keep one file per tool or server id:", "git rm tools/summarize.js   # keep tools/summarize.ts"),
    "invalid-url": before_after("mcp/tracker.jsonc", """
"url": "ftp://tracker.example/mcp",
""", """
"url": "https://tracker.example/mcp",
""", intro="Point the declaration at an `http:` or `https:` URL; packages declare remote servers only."),
    "import-crosses-boundary": before_after("tools/summarize.ts", """
import { helper } from "./helper";
""", """
import { helper } from "../lib/helper";
""", lang="ts", intro="Import shared code from `lib/` (or `assets/`), and an agent's own code from `agents/<agent>/lib/`; move the file there.",
        outro="Then `git mv tools/helper.ts lib/helper.ts`."),
    "unsupported-module": before_after("tools/summarize.ts", """
import { readFileSync } from "fs";
import { z } from "zod";
""", """
import { readFileSync } from "node:fs";
import { z } from "../lib/zod.js";
""", lang="ts", intro="Import Node's modules with the `node:` prefix (only `node:assert`, `buffer`, `crypto`, `fs`, `fs/promises`, `os`, `path`, `url`, `util` and `zlib` are there), and bundle any other library into `lib/`.",
        outro="`squad fix` adds a missing `node:` prefix."),
    "unsupported-import-extension": shell("Give the data file an extension tools may load (`.ts`, `.js`, `.json` in `lib/`; also `.html`, `.md`, `.txt`, `.css`, `.svg` in `assets/`), and change the import:", "git mv lib/data.csv lib/data.json   # and write it as JSON"),
    "non-literal-import": before_after("tools/load.ts", """
export async function load(name: string) { return import(name); }
""", """
import * as triage from "../lib/triage";
import * as timeline from "../lib/timeline";
export function load(name: string) { return name === "triage" ? triage : timeline; }
""", lang="ts", intro="Name every module with a string literal, so its closure can be checked and bundled."),
    "absolute-import": before_after("tools/summarize.ts", """
import template from "/home/me/templates/summary.md";
""", """
import template from "../assets/summary.md";
""", lang="ts", intro="Copy what the tool needs into the package (`assets/` or `lib/`) and import it with a relative path."),
    "unresolved-import": before_after("tools/summarize.ts", """
import { y } from "../lib/missing";
""", """
import { y } from "../lib/format";
""", lang="ts", intro="Import a file that exists (an import without extension resolves to `.ts`, then `.js`), or add the file."),
    "unreachable-library-file": shell("Delete the file no tool imports, or import it from a tool that needs it:", "git rm lib/unused.ts"),
    "unreachable-asset": shell("Delete the asset no tool imports, or import it from a tool; text for the model belongs in a skill instead:", "git rm assets/unused.md"),
    "tool-syntax": before_after("tools/summarize-changes.ts", """
export default tool({
  description: "Summarize the changes of a release",
  args: {};
""", """
export default tool({
  description: "Summarize the changes of a release",
  args: {},
""", lang="ts", intro="Correct the file at the caret: the message is the parser's, as Bun would report it. Types are fine in `.ts`, `.mts`, `.cts` and `.tsx` files only; a `.js` file is plain JavaScript (with JSX).",
        outro="`squad validate` reports every error of the file at once, so fix them from the first down and validate again."),
    "tool-default-export": before_after("tools/summarize.ts", """
import { tool } from "@opencorvus-ai/plugin";

export default ({
  description: "Summarize the changes of a release",
  args: {},
  async execute() { return "done"; },
});
""", """
import { tool } from "@opencorvus-ai/plugin";

export default tool({
  description: "Summarize the changes of a release",
  args: {},
  async execute() { return "done"; },
});
""", lang="ts", intro="Export the tool as the module's default export, made by `tool` from `@opencorvus-ai/plugin` (a value import, not `import type`):"),
    "tools-not-compiled": "Nothing to fix: the note says what `squad` could not check. Run the squad in OpenCorvus once to see each tool bundled by Bun and loaded.",
    "non-portable-path": shell("Rename the file with a portable name: no `< > : \" | ? *` or control characters, no trailing dot or space, not `CON`, `NUL`, `COM1` and the like, in Unicode NFC:", "git mv 'skills/triage/references/a:b.md' skills/triage/references/a-b.md"),
    "archive-limit": shell("Move files the squad does not need out of the package, or split a large one; `squad pack` then packs it:", "git mv skills/release-method/references/archive ../release-review-archive/"),
    "long-path": shell("Shorten the deepest folder names: installed under `<scope>/<namespace>/<id>/`, a path must stay under 240 characters and each name under 255 bytes:", "git mv skills/triage/references/deep-directory-name-00 skills/triage/references/d0"),
    "path-case-collision": shell("Keep one of the two names (they are one file on macOS and Windows):", "git rm skills/triage/references/Evidence.md   # keep evidence.md"),
    "source-in-runtime-storage": shell("Copy the package to a folder of its own and work there:", "cp -r .opencorvus/expert-squads/acme/postmortem ~/src/postmortem\nsquad validate ~/src/postmortem"),
}
