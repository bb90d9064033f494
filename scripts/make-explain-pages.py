#!/usr/bin/env python3
"""Writes docs/explain/<code>.md, the pages of `squad explain`, from the code table
(docs/diagnostics.md), the reasons below, the fixes in explain_fixes.py, and the fixture cases:
the failing example is the real output of `squad validate` on a case (built from its base
package and its one-line `<case>.change`, which tests/it/fixture_cases.rs writes) copied into a
folder named after its package, so the page shows what a user sees (no repository paths).
Run after `cargo build`; review the diff like any other change.
"""
import glob, os, re, shutil, subprocess, sys, tempfile

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
BIN = os.path.join(ROOT, "target", "debug", "squad")
sys.path.insert(0, os.path.join(ROOT, "scripts"))
import json
from interop_explain import ENTRIES as INTEROP
from project_explain import ENTRIES as PROJECT
from audit_explain import ENTRIES as AUDIT
from explain_fixes import FIXES
FIXTURES = os.path.join(ROOT, "registry-fixtures")

WHY = {
    "jsonc-syntax": "OpenCorvus reads manifests and MCP declarations with a JSONC parser that allows comments and trailing commas and nothing else; any other leniency (single quotes, a BOM, a non-breaking space between tokens) makes the reference reject the whole package.",
    "duplicate-key": "The reference silently keeps the last of two equal keys, so an edit to the first one has no effect. `squad` accepts the manifest as the reference does but warns, because the duplicate is almost always a mistake.",
    "invalid-utf8": "The reference decodes these files with replacement characters instead of failing, so invalid bytes reach the runtime as U+FFFD. The package still installs; the warning points at text that will not read as written.",
    "unreadable": "A file or directory that cannot be read cannot be checked, digested or installed; the package cannot be trusted until it can be read.",
    "unknown-field": "Every object of the manifest is closed: the reference rejects any key it does not know, which also catches misspelt field names that would otherwise be ignored.",
    "missing-field": "The reference has no defaults for required fields: all 13 resource arrays and `inherit_base_tools` must be written out on the scheduler and on every agent, and every other required field must be present.",
    "wrong-type": "Each field has one JSON type. Optional fields must be left out, never set to `null`: the reference's schema rejects `null` for every optional field.",
    "invalid-literal": "Some fields have exactly one legal value or a short list of them (for example `readme` is always `README.md`); anything else is rejected.",
    "blank-string": "Text fields must say something. Some are checked only for emptiness, others after trimming whitespace, as the reference does.",
    "invalid-id": "Ids are lower-kebab-case, 1-64 characters: they become folder names, ref prefixes and runtime identities on every platform.",
    "reserved-id": "Some ids are taken by the runtime (`orchestrator`, `shared`, `universal-build`); `runtime` and `worktrees` collide with runtime-internal directories and break discovery of every installed package in the scope.",
    "builtin-id-collision": "The ids of the packages embedded in OpenCorvus cannot be used by third-party packages: the reference refuses to install them and quarantines such a package when it finds one.",
    "invalid-version": "Versions are `YYYY.MM.DD.N`: the UTC date of the revision and its ordinal that day. The hosted registry treats (namespace, id, version) as immutable, so the format must be exact.",
    "invalid-version-date": "The date of a version must exist. The reference checks it with JavaScript's `Date.UTC`, which also makes years 0000-0099 unusable.",
    "empty-list": "Some lists need at least one element: a package serves at least one product pillar, a configuration declares at least one field, a workflow has at least one node.",
    "duplicate-entry": "Resource lists, pillars, configuration keys and dependencies are sets: a repeat is rejected rather than silently merged.",
    "unsorted-list": "`product_pillars` and `depends_on` must be in canonical (code-unit) order, so that equal manifests are written identically.",
    "unknown-base-role": "An agent's `base_role` selects one of the runtime's 13 templates, which decides its prompt frame and the tools it may project.",
    "execution-contract-mismatch": "The integrity role runs under the platform's integrity-review contract; the manifest must say so explicitly, and only for that role.",
    "invalid-prompt-path": "Each prompt lives at exactly `agents/<owner>/system.md` (the scheduler's owner is `orchestrator`), so a manifest can never point outside its own agent directory.",
    "unknown-built-in-tool": "`built_in_tool_ids` names core tools of the runtime; an unknown id would fail when the squad is activated.",
    "tool-not-supplied-by-role": "Each runtime template supplies a fixed set of built-in and default host tools; a projection may only ask for tools its base role supplies.",
    "invalid-default-ref": "Default (host) references follow a fixed grammar (`default/skill/<name>`, `default/tool/<name>`, `default/mcp/<server>/tool|prompt|resource/<name>`), checked before anything is resolved.",
    "unknown-default-tool": "Only nine default host tools exist; each belongs to one base role.",
    "default-mcp-server-unsupported": "Mounting a whole host MCP server is not supported; a projection names the individual tools, prompts or resources it needs.",
    "foreign-package-ref": "Every package reference starts with this package's id (never its namespace): a package can only project its own resources.",
    "dangling-ref": "A package reference must name a resource that exists in the package, of the right kind; otherwise the runtime would have nothing to mount.",
    "ref-not-owned": "Agent-local resources belong to one agent; other projections may use only shared resources or their own.",
    "mcp-mounted-twice": "`package_mcp_server_refs` already mounts every capability of a server; naming one of them again in the same projection is rejected as ambiguous.",
    "unprojected-resource": "Every resource a package ships must be used: shared ones by at least one projection, agent-local ones by their owner. Unused files are rejected rather than shipped silently.",
    "unknown-agent": "Workflow nodes dispatch declared agents; the scheduler and the platform's scheduler-only worker cannot be nodes.",
    "unknown-dependency": "A node can depend only on nodes of the same workflow.",
    "self-dependency": "A node that depends on itself can never run.",
    "dependency-cycle": "Every node of a selected workflow runs once per task in dependency order; a cycle has no valid order.",
    "unused-agent": "Once a package declares workflows, its agents do their work as the workflows' nodes. An agent that no node names is valid, but it is usually one that was added and never wired in, or one left behind when a workflow changed; the note says so once the package has no error.",
    "missing-file": "`expert-squad.jsonc`, `README.md` and `selector.md` are required, and every declared prompt must exist.",
    "blank-file": "README.md (without its frontmatter), selector.md and every prompt are runtime prompt text; a blank one would give the runtime nothing to work with.",
    "readme-frontmatter": "The runtime strips README.md's YAML frontmatter with gray-matter and js-yaml, so a block they cannot parse makes the package fail to load.",
    "unknown-top-level-entry": "The package root is an allow-list: expert-squad.jsonc, README.md, selector.md and the directories agents/, skills/, tools/, mcp/, lib/, assets/. Anything else (LICENSE, package.json, docs/) is rejected; version-control metadata (.git, .gitignore, ...) is left out of the package, not rejected.",
    "wrong-entry-type": "Names in the package layout are typed: a name that must be a file cannot be a directory, and the reverse.",
    "host-metadata-in-source": "`.opencorvus-meta.json` is written by the installer; a source package that carries one could forge installation metadata.",
    "runtime-internal-entry": "`.opencorvus`, `.r`, `runtime`, `worktrees` and `.opencorvus-meta.json` are reserved for runtime storage at any depth; a package must not shadow them.",
    "symlink": "A symbolic link could point outside the package; the reference rejects links anywhere in a package, including the root.",
    "special-file": "Only regular files and directories can be packed, digested and installed; FIFOs, sockets and devices cannot.",
    "undeclared-agent-directory": "Every `agents/<dir>/` other than `agents/orchestrator/` belongs to a declared agent; an undeclared directory holds files no projection can use.",
    "unexpected-agent-entry": "An agent directory holds only system.md and the directories skills/, tools/, mcp/ and lib/.",
    "undeclared-prompt": "A prompt file without a `prompt` declaration would be ignored; the reference rejects it instead.",
    "skill-layout": "Skills are directories that contain SKILL.md; a file outside any skill directory belongs to no skill.",
    "skill-unsafe-path": "Skill files are exposed by path; leading or trailing whitespace makes a path ambiguous, and a `\\` or `:` means a separator, a drive or a stream on Windows (SKL-2).",
    "nested-skill-md": "A skill has one SKILL.md at its top; a second skill.md (any case) inside it would be ambiguous.",
    "skill-not-utf8": "SKILL.md is read strictly as UTF-8 by the reference.",
    "skill-frontmatter": "SKILL.md starts with YAML frontmatter (parsed by gray-matter and js-yaml) that names and describes the skill; it must parse and have a valid `name` and `description`.",
    "skill-name-style": "A skill's frontmatter `name` is how the runtime shows it and tells skills apart. The format allows any name, but the real packages name each skill after its folder (or `<prefix>-<folder>`, such as `equity-research-method` in `skills/method/`); a name that does neither is usually left over from the skill it was copied from, and two such copies clash.",
    "skill-name-conflict": "The runtime refuses to give one projection two skills with the same frontmatter name; the reference registry does not check this, so `squad` warns before activation fails.",
    "unsupported-tool-extension": "Package tools are `.ts` or `.js` files named after their id; other files in tools/ are rejected.",
    "invalid-tool-id": "A tool's file name is its id and must be lower-kebab-case (so `foo.d.ts` or `Foo.ts` are rejected).",
    "unsupported-mcp-extension": "MCP declarations are `<server>.json` or `<server>.jsonc`.",
    "invalid-resource-name": "MCP server ids and capability names become path segments of refs; they must be non-empty and contain no slash or backslash.",
    "duplicate-resource": "Two files that produce the same ref (for example `x.ts` and `x.js`) make the ref ambiguous.",
    "invalid-url": "Packages can declare only remote MCP servers, reached over http or https.",
    "import-crosses-boundary": "A tool may import only from lib/, assets/ and (for an agent's own tools) agents/<owner>/lib/: it cannot read the manifest, skills, other tools or another agent's code.",
    "unsupported-module": "Tools run in a sandbox that provides only a few `node:` modules, `@opencorvus-ai/plugin` and `typescript`; other modules must be bundled into lib/.",
    "unsupported-import-extension": "lib/ holds `.ts`, `.js` and `.json`; assets/ also `.html`, `.md`, `.txt`, `.css` and `.svg`. Other files cannot be loaded by a tool.",
    "non-literal-import": "Tools are bundled ahead of time; a dynamic import or require of a computed name cannot be checked or bundled.",
    "absolute-import": "Absolute paths and `file:` URLs would load code from outside the package.",
    "unresolved-import": "A relative import must resolve to a file of the package (an import without extension resolves to `.ts` or `.js`).",
    "unreachable-library-file": "Every file under lib/ must be imported by some tool; dead files are rejected rather than shipped.",
    "unreachable-asset": "Every file under assets/ must be imported by some tool; model-readable material belongs in a skill directory instead.",
    "tool-syntax": "The reference compiles every tool, and every file the tool imports, with Bun's bundler while validating; a file that does not parse fails the compilation and the whole package is refused. `squad` parses each of these files the way Bun's loaders read it (TypeScript for .ts, .mts, .cts and .tsx; JavaScript with JSX for .js and .jsx) and reports every syntax error the parser finds, with the ECMAScript early errors (a redeclared binding, a `break` outside a loop). Errors of TypeScript's type checker are not reported: Bun strips types without checking them.",
    "tool-default-export": "The runtime loads a package tool from its module's default export, which must be the definition that `tool({...})` from `@opencorvus-ai/plugin` returns; anything else fails only when the tool is first loaded. `squad` follows the default export (through `const` bindings) to a call of that `tool` and warns when it finds something else. It is a warning because the reference accepts the package and fails at run time.",
    "tools-not-compiled": "`squad` parses each tool and the files it imports and checks their syntax, imports and default export statically; bundling them with Bun and running them happen only in the runtime, and the note says so. A file too large to parse is reported with this code as a warning: its closure is left to the runtime.",
    "non-portable-path": "One path policy for validate, pack and install: NFC names, no Windows-reserved names or characters, no trailing dot or space, so a package installs the same on every platform.",
    "archive-limit": "The reference imports an archive only within 512 entries, 4 MiB a file and 16 MiB unpacked (LIM-2); a folder has no limits (LIM-1), so validation warns rather than refuses, but `squad pack` and `squad publish` refuse such a package, and CI that runs `squad validate --deny-warnings` fails before the release does.",
    "long-path": "Installed under `<scope>/<namespace>/<id>/`, a long path exceeds Windows' limit or a filesystem's 255-byte name limit; `squad pack` refuses such a package.",
    "path-case-collision": "Two paths that differ only by case (or Unicode normalisation) overwrite each other on case-insensitive filesystems.",
    "source-in-runtime-storage": "Packages are imported from a source folder of their own; validating or importing from inside runtime storage or an installed packages root would read (or race with) the runtime's own files.",
}

MANUAL = {
    "unreadable": ("error[unreadable]: cannot read `skills/x/SKILL.md`: Permission denied (os error 13)", "Make the file readable by the user running `squad` (for example `chmod u+r`)."),
    "symlink": ("error[symlink]: symbolic links are not allowed\n  --> pkg/skills/method/references/shared.md\nhelp: replace the link with a copy of the file or directory it points to", "Replace the link with a copy of its target: `cp --remove-destination \"$(readlink -f link)\" link`."),
    "special-file": ("error[special-file]: expected regular file\n  --> pkg/agents/worker/pipe", "Remove the FIFO, socket or device file from the package."),
    "source-in-runtime-storage": ("error[source-in-runtime-storage]: expert squad source directory `/work/app/.opencorvus/expert-squads/acme/pkg` is inside OpenCorvus runtime storage\n  --> .", "Copy the package to a folder of its own and validate or install that copy."),
    "invalid-utf8": ("warning[invalid-utf8]: `README.md` is not valid UTF-8; invalid bytes read as U+FFFD\n  --> pkg/README.md\nhelp: save the file as UTF-8", "Save the file as UTF-8."),
}


# The example each page shows, so that its "Fixed" section (explain_fixes.py) speaks of it: a
# case name, or a folder of the repository. A code without one shows its first case.
CASES = {
    "tool-syntax": "tool-syntax--stray-semicolon",
    "tool-default-export": "accepted--default-export-not-a-tool-warning",
    "jsonc-syntax": "jsonc-syntax--byte-order-mark",
    "duplicate-key": "accepted--duplicate-key-warning",
    "unknown-field": "unknown-field--top-level-agents",
    "missing-field": "missing-field--label",
    "wrong-type": "wrong-type--schema-version-string",
    "invalid-literal": "invalid-literal--schema-version-2",
    "blank-string": "blank-string--label-empty",
    "invalid-id": "invalid-id--id-with-space",
    "reserved-id": "reserved-id--agent-orchestrator",
    "builtin-id-collision": "accepted--builtin-id-warning",
    "invalid-version": "invalid-version--one-digit-month",
    "invalid-version-date": "invalid-version-date--not-a-leap-year",
    "empty-list": "empty-list--product-pillars",
    "duplicate-entry": "duplicate-entry--built-in-tool-ids",
    "unsorted-list": "duplicate-entry+unsorted-list--pillars-repeat",
    "unknown-base-role": "unknown-base-role--foo",
    "execution-contract-mismatch": "execution-contract-mismatch--integrity-without-contract",
    "invalid-prompt-path": "invalid-prompt-path--scheduler-x-md",
    "unknown-built-in-tool": "unknown-built-in-tool--typo",
    "tool-not-supplied-by-role": "tool-not-supplied-by-role--scheduler-write",
    "invalid-default-ref": "invalid-default-ref--skills-plural",
    "unknown-default-tool": "unknown-default-tool--nope",
    "default-mcp-server-unsupported": "default-mcp-server-unsupported--github",
    "foreign-package-ref": "foreign-package-ref--other-id",
    "dangling-ref": "dangling-ref--skill",
    "ref-not-owned": "ref-not-owned--agent-skill",
    "mcp-mounted-twice": "mcp-mounted-twice--tool",
    "unprojected-resource": "unprojected-resource--shared-skill",
    "unknown-agent": "unknown-agent--ghost",
    "unknown-dependency": "unknown-dependency--missing-node",
    "self-dependency": "self-dependency+dependency-cycle--build",
    "dependency-cycle": "dependency-cycle--three-nodes",
    "unused-agent": "tests/fixtures/explain/unused-agent",
    "missing-file": "missing-file--readme",
    "readme-frontmatter": "readme-frontmatter--invalid-yaml",
    "blank-file": "blank-file--readme-whitespace",
    "unknown-top-level-entry": "unknown-top-level-entry--license",
    "wrong-entry-type": "wrong-entry-type--readme-directory",
    "host-metadata-in-source": "host-metadata-in-source--root",
    "runtime-internal-entry": "runtime-internal-entry--runtime-in-skill",
    "undeclared-agent-directory": "undeclared-agent-directory--ghost",
    "unexpected-agent-entry": "unexpected-agent-entry--notes",
    "undeclared-prompt": "undeclared-prompt--scheduler",
    "skill-layout": "skill-layout--loose-file",
    "skill-unsafe-path": "skill-unsafe-path--leading-space",
    "nested-skill-md": "nested-skill-md--in-references",
    "skill-not-utf8": "skill-not-utf8--latin1",
    "skill-frontmatter": "skill-frontmatter--missing",
    "skill-name-conflict": "accepted--skill-name-conflict-warning",
    "skill-name-style": "tests/fixtures/explain/skill-name-style",
    "unsupported-tool-extension": "unsupported-tool-extension--mts",
    "invalid-tool-id": "invalid-tool-id--pascal-case",
    "unsupported-mcp-extension": "unsupported-mcp-extension--yaml",
    "invalid-resource-name": "invalid-resource-name--capability-slash",
    "duplicate-resource": "duplicate-resource--tool-ts-and-js",
    "invalid-url": "invalid-url--ftp",
    "import-crosses-boundary": "import-crosses-boundary--sibling-tool",
    "unsupported-module": "unsupported-module--fs-without-node-prefix",
    "unsupported-import-extension": "unsupported-import-extension--csv",
    "non-literal-import": "non-literal-import--dynamic-import",
    "absolute-import": "absolute-import--unix-path",
    "unresolved-import": "unresolved-import--missing-lib",
    "unreachable-library-file": "unreachable-library-file--unused-lib",
    "unreachable-asset": "unreachable-asset--unused-template",
    "tools-not-compiled": "accepted--nested-skill-group",
    "non-portable-path": "non-portable-path+skill-unsafe-path--colon",
    "long-path": "accepted--long-path-warning",
    "archive-limit": "accepted--archive-limit-entries",
    "path-case-collision": "path-case-collision--skill-reference",
}


def rule_ids(rules):
    """The rule ids a rules column cites, as `Code::rule_ids` reads them (ranges spelled out)."""
    ids = []
    for part in (part.strip() for part in rules.split(",")):
        if ".." in part:
            first, last = part.split("..", 1)
            family, start = first.rsplit("-", 1)
            letters = start.rstrip("0123456789")
            ids += [f"{family}-{letters}{n}" for n in range(int(start[len(letters):]), int(last[len(letters):] if last.startswith(letters) else last) + 1)]
        elif re.fullmatch(r"[A-Z][A-Z0-9]*(-[A-Z0-9]+)*[a-z]?", part):
            ids.append(part)
    return ids


def rules_line(rules, spec_file):
    """`Rules: ...`, with a link to docs/rules.md where the code cites rule ids."""
    ids = rule_ids(rules)
    if not ids:
        return f"Rules: {rules} ({spec_file})."
    return f"Rules: {rules} ({spec_file}); each is stated in [docs/rules.md](../rules.md#{ids[0].lower()})."



def table():
    rows = {}
    for line in open(os.path.join(ROOT, "docs", "diagnostics.md"), encoding="utf-8"):
        m = re.match(r"\| `([a-z0-9-]+)` \| (\w+) \| ([^|]*) \| (.*) \|$", line.strip())
        if m:
            rows[m.group(1)] = (m.group(2), m.group(3).strip(), m.group(4).strip())
    return rows


def cases():
    """Every case with a `.change` line: name -> (kind, base, change)."""
    found = {}
    for kind in ("invalid", "valid"):
        for path in sorted(glob.glob(os.path.join(FIXTURES, kind, "*.change"))):
            name = os.path.basename(path)[: -len(".change")]
            with open(path, encoding="utf-8") as handle:
                line = json.loads(handle.read())
            found[name] = (kind, line["base"], line["change"])
    return found



def first_case(code, all_cases):
    """The first case that produces the code: by name among the refused cases, else among the
    diagnostics of the accepted ones (warnings and notes)."""
    for name, (kind, _, _) in all_cases.items():
        if kind == "invalid" and code in name.split("--")[0].split("+"):
            return name
    for name, (kind, _, _) in all_cases.items():
        path = os.path.join(FIXTURES, kind, name + ".diagnostics.json")
        if kind == "valid" and f'"code": "{code}"' in open(path, encoding="utf-8").read():
            return name
    return None



def content(operation):
    if "bytes" in operation:
        return bytes(operation["bytes"])
    return operation["text"].encode("utf-8")


def materialize(root, name, kind, base, change):
    """Builds a case at root/registry-fixtures/<kind>/<name>, as the fixture tests do."""
    target = os.path.join(root, "registry-fixtures", kind, name)
    shutil.copytree(os.path.join(FIXTURES, "valid", base), target)
    for operation in change:
        if "replace" in operation:
            path = os.path.join(target, operation["in"])
            with open(path, encoding="utf-8", newline="") as handle:
                text = handle.read()
            assert text.count(operation["replace"]) == 1, (name, operation)
            with open(path, "w", encoding="utf-8", newline="") as handle:
                handle.write(text.replace(operation["replace"], operation["with"]))
        elif "remove" in operation:
            os.remove(os.path.join(target, operation["remove"]))
        elif "crlf" in operation:
            path = os.path.join(target, operation["crlf"])
            with open(path, "rb") as handle:
                data = handle.read()
            with open(path, "wb") as handle:
                handle.write(data.replace(b"\r\n", b"\n").replace(b"\n", b"\r\n"))
        else:
            verb = next(key for key in ("write", "prepend", "append") if key in operation)
            path = os.path.join(target, operation[verb])
            os.makedirs(os.path.dirname(path), exist_ok=True)
            data = content(operation)
            if verb != "write":
                with open(path, "rb") as handle:
                    existing = handle.read()
                data = data + existing if verb == "prepend" else existing + data
            with open(path, "wb") as handle:
                handle.write(data)



def package_name(directory):
    """The folder a user would keep the package in: its id, when it is a valid one."""
    try:
        text = open(os.path.join(directory, "expert-squad.jsonc"), encoding="utf-8", errors="replace").read()
    except OSError:
        return "my-squad"
    m = re.search(r'"id"\s*:\s*"([^"]*)"', text)
    if m and re.fullmatch(r"[a-z][a-z0-9]*(-[a-z0-9]+)*", m.group(1)):
        return m.group(1)
    return "my-squad"


def failing_output(source, code, all_cases):
    """`squad validate` of a copy of a case (by name) or a folder, as (command, the block of
    `code`)."""
    with tempfile.TemporaryDirectory() as root:
        if source in all_cases:
            kind, base, change = all_cases[source]
            materialize(root, source, kind, base, change)
            built = os.path.join(root, "registry-fixtures", kind, source)
        else:
            built = os.path.join(ROOT, source)
        name = package_name(built)
        work = os.path.join(root, "work")
        os.makedirs(work)
        shutil.copytree(built, os.path.join(work, name), symlinks=True)
        result = subprocess.run([BIN, "validate", "--color", "never", name], capture_output=True, text=True, cwd=work)
    for block in result.stderr.split("\n\n"):
        if block.split("[", 1)[-1].startswith(code + "]"):
            return f"squad validate {name}", block.strip()
    return None, None



PATHS = [
    ("registry-fixtures/interop/examples/", ""),
    ("registry-fixtures/interop/collab/squads/", "squads/"),
    ("registry-fixtures/interop/collab/", ""),
    ("registry-fixtures/interop/router/contracts/invalid-impl/missing-md/", "ck-brain/"),
    ("registry-fixtures/interop/router/contracts/invalid/", "contracts/"),
    ("registry-fixtures/interop/router/cases/", "cases/"),
    ("registry-fixtures/interop/workspace", "."),
    ("registry-fixtures/interop/play/export/", ""),
    ("registry-fixtures/interop/play/valid/", ""),
    ("registry-fixtures/interop/play/invalid/", ""),
    ("registry-fixtures/interop/play/", ""),
    ("registry-fixtures/projects/", ""),
    ("registry-fixtures/invalid/blank-file--prompt", "squads/broken-squad"),
    ("target/explain-import", "imported"),
]


def user_paths(text):
    for old, new in PATHS:
        text = text.replace(old, new)
    return text


EXAMPLES = os.path.join("registry-fixtures", "interop", "examples")


def interop_page(code, entry):
    """The example part of a page for a code of the neighbouring formats."""
    if "doc" in entry:
        path = os.path.join(ROOT, EXAMPLES, code + ".json")
        with open(path, "w", encoding="utf-8") as handle:
            handle.write(json.dumps(json.loads(entry["doc"]), indent=2, ensure_ascii=False) + "\n")
    if "run" in entry:
        args = entry["run"]
    elif "doc" in entry:
        args = ["validate"] + entry.get("args", []) + [os.path.join(EXAMPLES, code + ".json")]
    else:
        args = None
    failing = entry.get("text")
    if args:
        result = subprocess.run([BIN, "--color", "never"] + args, capture_output=True, text=True, cwd=ROOT)
        for block in result.stderr.split("\n\n"):
            if block.split("[", 1)[-1].startswith(code + "]"):
                failing = block.strip()
                break
        else:
            sys.exit(f"{code}: `squad {' '.join(args)}` did not report it:\n{result.stderr}")
        for leftover in glob.glob(os.path.join(ROOT, "target", "explain-import*")):
            subprocess.run(["rm", "-rf", leftover])
    page = []
    if failing:
        page += ["## Failing example", ""]
        if args:
            page += [f"`squad {user_paths(' '.join(args))}`:", ""]
        page += ["```text", user_paths(failing), "```", ""]
    page += ["## Fixed", "", entry["fix"], ""]
    return page


PROJECTS = os.path.join("registry-fixtures", "projects")


def project_page(code, entry):
    directory = os.path.join(ROOT, PROJECTS, code)
    subprocess.run(["rm", "-rf", directory])
    for name, text in entry["files"].items():
        path = os.path.join(directory, name)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w", encoding="utf-8") as handle:
            handle.write(text)
    args = ["sync", "--project", os.path.join(PROJECTS, code)]
    result = subprocess.run([BIN, "--color", "never"] + args, capture_output=True, text=True, cwd=ROOT)
    for block in result.stderr.split("\n\n"):
        if block.split("[", 1)[-1].startswith(code + "]"):
            failing = block.strip()
            break
    else:
        sys.exit(f"{code}: `squad {' '.join(args)}` did not report it:\n{result.stderr}")
    return ["## Failing example", "", f"`squad {' '.join(args)}`:", "", "```text", failing, "```", "", "## Fixed", "", entry["fix"], ""]


def write_project_cases():
    cases = [{"project": code, "code": code, "line": entry["line"]} for code, entry in PROJECT.items()]
    with open(os.path.join(ROOT, PROJECTS, "cases.json"), "w", encoding="utf-8") as handle:
        handle.write(json.dumps(cases, indent=2) + "\n")



AUDIT_CASES = os.path.join(FIXTURES, "audit")


def audit_page(code, rules, entry):
    """The page of a code of `squad audit`: its case built from its `.change` line and audited."""
    ids = rule_ids(rules)
    page = [f"Rules: {rules} (squad's audit rules); each is stated in [docs/rules.md](../rules.md#{ids[0].lower()}).", "", "## Why", "", entry["why"], ""]
    name = entry["case"]
    with open(os.path.join(AUDIT_CASES, name + ".change"), encoding="utf-8") as handle:
        line = json.loads(handle.read())
    with tempfile.TemporaryDirectory() as root:
        materialize(root, name, "audit", line["base"], line["change"])
        built = os.path.join(root, "registry-fixtures", "audit", name)
        package = package_name(built)
        work = os.path.join(root, "work")
        os.makedirs(work)
        shutil.copytree(built, os.path.join(work, package), symlinks=True)
        result = subprocess.run([BIN, "audit", "--color", "never", package], capture_output=True, text=True, cwd=work)
    for block in result.stderr.split("\n\n"):
        if block.split("[", 1)[-1].startswith(code + "]"):
            failing = block.strip()
            break
    else:
        sys.exit(f"{code}: `squad audit` of {name} did not report it:\n{result.stderr}")
    page += ["## Failing example", "", f"`squad audit {package}`:", "", "```text", failing, "```", ""]
    page += ["## Fixed", "", entry["fix"], ""]
    return page


def write_cases():
    """registry-fixtures/interop/examples/cases.json: which document must produce which code."""
    cases = []
    for code, entry in INTEROP.items():
        if "doc" in entry and "run" not in entry:
            cases.append({"file": code + ".json", "args": entry.get("args", []), "code": code})
    with open(os.path.join(ROOT, EXAMPLES, "cases.json"), "w", encoding="utf-8") as handle:
        handle.write(json.dumps(cases, indent=2) + "\n")


def write_page(out_dir, code, page):
    text = user_paths("\n".join(page))
    if "registry-fixtures" in text:
        sys.exit(f"{code}: the page shows a repository path")
    with open(os.path.join(out_dir, code + ".md"), "w", encoding="utf-8") as handle:
        handle.write(text)


def main():
    rows = table()
    all_cases = cases()
    os.makedirs(os.path.join(ROOT, EXAMPLES), exist_ok=True)
    for old in glob.glob(os.path.join(ROOT, EXAMPLES, "*.json")):
        os.remove(old)
    write_cases()
    os.makedirs(os.path.join(ROOT, PROJECTS), exist_ok=True)
    write_project_cases()
    out_dir = os.path.join(ROOT, "docs", "explain")
    os.makedirs(out_dir, exist_ok=True)
    for old in glob.glob(os.path.join(out_dir, "*.md")):
        os.remove(old)
    for code, (severity, rules, meaning) in rows.items():
        head = [f"# `{code}` ({severity})", "", f"{meaning[0].upper()}{meaning[1:]}.", ""]
        if code in AUDIT:
            write_page(out_dir, code, head + audit_page(code, rules, AUDIT[code]))
            continue
        if code in PROJECT:
            entry = PROJECT[code]
            page = head + [rules_line(rules, "docs/project-files.md"), "", "## Why", "", entry["why"], ""]
            write_page(out_dir, code, page + project_page(code, entry))
            continue
        if code in INTEROP:
            entry = INTEROP[code]
            spec_file = "package-format.md" if code.startswith("collab-") else "seed-formats.md"
            page = head + [rules_line(rules, spec_file), "", "## Why", "", entry["why"], ""]
            write_page(out_dir, code, page + interop_page(code, entry))
            continue
        page = head + [rules_line(rules, "package-format.md"), "", "## Why", "", WHY[code], ""]
        source = CASES.get(code) or first_case(code, all_cases)
        command = failing = None
        if source:
            command, failing = failing_output(source, code, all_cases)
        if failing:
            page += ["## Failing example", "", f"`{command}`:", "", "```text", failing, "```", ""]
        else:
            text, _ = MANUAL[code]
            page += ["## Failing example", "", "```text", text, "```", ""]
        page += ["## Fixed", "", FIXES[code], ""]
        write_page(out_dir, code, page)
    print("wrote %d pages" % len(rows))


if __name__ == "__main__":
    main()
