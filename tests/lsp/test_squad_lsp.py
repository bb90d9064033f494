"""End-to-end tests of `squad lsp`: the real binary driven by a real LSP client (pytest-lsp on
pygls), as an editor drives it. Run by tests/it/lsp.rs, which passes the binary's path in
SQUAD_BINARY; `.ci/run` installs the client (tests/lsp/requirements.txt)."""

import asyncio
import json
import os
import pathlib
import shutil
import tempfile

import pytest
import pytest_lsp
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities

SQUAD = os.environ["SQUAD_BINARY"]
REPO = pathlib.Path(__file__).resolve().parents[2]
FIXTURE = REPO / "registry-fixtures" / "valid" / "release-review"
TIMEOUT = 30.0
HOME = tempfile.mkdtemp(prefix="squad-lsp-home-")
ENV = {
    "PATH": os.environ.get("PATH", ""),
    "HOME": HOME,
    "SQUAD_CACHE_DIR": os.path.join(HOME, "cache"),
    "OPENCORVUS_HOME": os.path.join(HOME, "opencorvus"),
    "NO_COLOR": "1",
}
CONFIG = ClientServerConfig(server_command=[SQUAD, "lsp"], server_env=ENV)


def utf16_len(text):
    return len(text.encode("utf-16-le")) // 2


def position_of(text, offset):
    """The LSP position (UTF-16 columns) of a str offset."""
    line = text.count("\n", 0, offset)
    start = text.rfind("\n", 0, offset) + 1
    return types.Position(line=line, character=utf16_len(text[start:offset]))


def offset_of(text, position):
    starts = [0] + [i + 1 for i, c in enumerate(text) if c == "\n"]
    if position.line >= len(starts):
        return len(text)
    start = starts[position.line]
    end = starts[position.line + 1] - 1 if position.line + 1 < len(starts) else len(text)
    units = 0
    for at in range(start, end):
        if units >= position.character:
            return at
        units += utf16_len(text[at])
    return end


def apply_edits(text, edits):
    placed = sorted(
        ((offset_of(text, e.range.start), offset_of(text, e.range.end), e.new_text) for e in edits),
        reverse=True,
    )
    for start, end, new in placed:
        text = text[:start] + new + text[end:]
    return text


class Doc:
    """A document open in the client, edited as an editor edits it (incremental changes)."""

    def __init__(self, client, path, text=None):
        self.client = client
        self.path = pathlib.Path(path)
        self.uri = self.path.as_uri()
        self.text = self.path.read_text() if text is None else text
        self.version = 1
        client.diagnostics.pop(self.uri, None)
        client.text_document_did_open(
            types.DidOpenTextDocumentParams(
                text_document=types.TextDocumentItem(
                    uri=self.uri, language_id="jsonc", version=self.version, text=self.text
                )
            )
        )

    def find(self, needle, occurrence=0):
        at = -1
        for _ in range(occurrence + 1):
            at = self.text.index(needle, at + 1)
        return at

    def position(self, needle, into=1, occurrence=0):
        return position_of(self.text, self.find(needle, occurrence) + into)

    def range_of(self, needle, occurrence=0):
        at = self.find(needle, occurrence)
        return types.Range(start=position_of(self.text, at), end=position_of(self.text, at + len(needle)))

    def replace(self, old, new, occurrence=0):
        """Replaces one occurrence of `old` by an incremental change."""
        change = types.TextDocumentContentChangePartial(range=self.range_of(old, occurrence), text=new)
        at = self.find(old, occurrence)
        self.text = self.text[:at] + new + self.text[at + len(old):]
        self._send([change])

    def set_text(self, text):
        self.text = text
        self._send([types.TextDocumentContentChangeWholeDocument(text=text)])

    def _send(self, changes):
        self.version += 1
        self.client.diagnostics.pop(self.uri, None)
        self.client.text_document_did_change(
            types.DidChangeTextDocumentParams(
                text_document=types.VersionedTextDocumentIdentifier(uri=self.uri, version=self.version),
                content_changes=changes,
            )
        )

    def at(self, needle, into=1, occurrence=0, kind=types.TextDocumentPositionParams, **more):
        """Request parameters at a position inside `needle` (`into` characters in)."""
        return kind(
            text_document=types.TextDocumentIdentifier(uri=self.uri),
            position=self.position(needle, into, occurrence),
            **more,
        )


async def published(client, uri, predicate=lambda diagnostics: True, forget=False):
    """The next diagnostics published for `uri` that satisfy `predicate`."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + TIMEOUT
    if forget:
        client.diagnostics.pop(uri, None)
    while True:
        current = client.diagnostics.get(uri)
        if current is not None and predicate(current):
            return list(current)
        if loop.time() > deadline:
            raise AssertionError(f"no matching diagnostics for {uri}; last: {current}")
        await asyncio.sleep(0.01)


def codes(diagnostics):
    return sorted(d.code for d in diagnostics)


@pytest.fixture
def package(tmp_path):
    root = tmp_path / "release-review"
    shutil.copytree(FIXTURE, root)
    return root


def accept_registrations(client):
    """Answers the server's `client/registerCapability` as VS Code does (pytest-lsp's client
    has no handler of its own)."""
    client.registrations = []

    @client.feature(types.CLIENT_REGISTER_CAPABILITY)
    def register(params):
        client.registrations.append(params)
        return None


@pytest_lsp.fixture(config=CONFIG)
async def client(lsp_client: LanguageClient):
    accept_registrations(lsp_client)
    await lsp_client.initialize_session(
        types.InitializeParams(capabilities=client_capabilities("visual-studio-code"))
    )
    yield
    await lsp_client.shutdown_session()


async def open_manifest(client, package):
    doc = Doc(client, package / "expert-squad.jsonc")
    assert await published(client, doc.uri) == []
    return doc


async def test_initialize_announces_what_the_server_does():
    client = await CONFIG.start()
    accept_registrations(client)
    try:
        result = await client.initialize_session(
            types.InitializeParams(capabilities=client_capabilities("visual-studio-code"))
        )
        capabilities = result.capabilities
        assert result.server_info.name == "squad"
        assert capabilities.position_encoding == types.PositionEncodingKind.Utf16
        assert capabilities.text_document_sync.change == types.TextDocumentSyncKind.Incremental
        assert capabilities.hover_provider is True
        assert capabilities.definition_provider is True
        assert capabilities.references_provider is True
        assert capabilities.rename_provider.prepare_provider is True
        assert set(capabilities.code_action_provider.code_action_kinds) == {
            types.CodeActionKind.QuickFix,
            types.CodeActionKind.SourceFixAll,
        }
        assert '"' in capabilities.completion_provider.trigger_characters
        # VS Code registers file watching dynamically: the server asks for it.
        loop = asyncio.get_running_loop()
        deadline = loop.time() + TIMEOUT
        while not client.registrations and loop.time() < deadline:
            await asyncio.sleep(0.01)
        (registration,) = client.registrations[0].registrations
        assert registration.method == "workspace/didChangeWatchedFiles"
        await client.shutdown_session()
    finally:
        await client.stop()


async def test_a_client_that_prefers_utf8_positions_gets_them():
    client = await CONFIG.start()
    try:
        result = await client.initialize_session(
            types.InitializeParams(capabilities=client_capabilities("neovim@v0.11.0"))
        )
        assert result.capabilities.position_encoding == types.PositionEncodingKind.Utf8
        await client.shutdown_session()
    finally:
        await client.stop()


async def test_a_broken_rule_is_published_with_its_code_and_range_and_its_fix_clears_it(
    client: LanguageClient, package
):
    doc = await open_manifest(client, package)
    builder_read = doc.find('"read"', 1)
    doc.replace('"read"', '"raed"', occurrence=1)
    diagnostics = await published(client, doc.uri, lambda d: len(d) > 0)
    assert codes(diagnostics) == ["unknown-built-in-tool"]
    (diagnostic,) = diagnostics
    assert diagnostic.message == "unknown built-in tool `raed`"
    assert diagnostic.severity == types.DiagnosticSeverity.Error
    assert diagnostic.source == "squad"
    assert diagnostic.range == types.Range(
        start=position_of(doc.text, builder_read), end=position_of(doc.text, builder_read + 6)
    )
    # The explain page is a file the editor can open.
    page = pathlib.Path(diagnostic.code_description.href.removeprefix("file://"))
    assert page.read_text().startswith("# `unknown-built-in-tool` (error)")

    actions = await client.text_document_code_action_async(
        types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(uri=doc.uri),
            range=diagnostic.range,
            context=types.CodeActionContext(diagnostics=[diagnostic]),
        )
    )
    quick_fixes = [a for a in actions if a.kind == types.CodeActionKind.QuickFix]
    assert quick_fixes[0].title == "did you mean `read`?"
    assert quick_fixes[0].is_preferred is True
    doc.set_text(apply_edits(doc.text, quick_fixes[0].edit.changes[doc.uri]))
    assert await published(client, doc.uri) == []


async def test_positions_count_utf16_code_units(client: LanguageClient, package):
    doc = await open_manifest(client, package)
    # Non-ASCII text before the error on the same line: é is one UTF-16 unit and two UTF-8
    # bytes, 😀 two units and four bytes.
    doc.replace('"Write acceptance criteria."', '"Écrire les critères 😀 d\'acceptation."')
    doc.replace('"depends_on": [] }', '"depends_on": ["nowhere"] }')
    diagnostics = await published(client, doc.uri, lambda d: len(d) > 0)
    assert codes(diagnostics) == ["unknown-dependency"]
    at = doc.find('"nowhere"')
    assert diagnostics[0].range.start == position_of(doc.text, at)
    assert diagnostics[0].range.end == position_of(doc.text, at + len('"nowhere"'))
    line = doc.text[doc.text.rfind("\n", 0, at) + 1 : at]
    assert diagnostics[0].range.start.character == utf16_len(line) != len(line.encode())


async def test_diagnostics_are_published_for_every_file_they_point_into(
    client: LanguageClient, package
):
    doc = await open_manifest(client, package)
    skill = (package / "skills/checklists/security/SKILL.md").as_uri()
    doc.replace('"release-review/shared/checklists/security"', '"release-review/shared/checklists/securty"')
    manifest = await published(client, doc.uri, lambda d: len(d) > 0)
    assert codes(manifest) == ["dangling-ref"]
    assert "securty" in manifest[0].message
    unused = await published(client, skill, lambda d: len(d) > 0)
    assert codes(unused) == ["unprojected-resource"]
    doc.replace('"release-review/shared/checklists/securty"', '"release-review/shared/checklists/security"')
    assert await published(client, doc.uri) == []
    assert await published(client, skill, lambda d: len(d) == 0) == []


async def test_a_quick_fix_creates_a_missing_skill_from_the_scaffold(
    client: LanguageClient, package
):
    doc = await open_manifest(client, package)
    doc.replace(
        '"package_skill_refs": ["release-review/shared/release-method"]',
        '"package_skill_refs": ["release-review/shared/new-method", "release-review/shared/release-method"]',
    )
    diagnostics = await published(client, doc.uri, lambda d: len(d) > 0)
    assert codes(diagnostics) == ["dangling-ref"]
    actions = await client.text_document_code_action_async(
        types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(uri=doc.uri),
            range=diagnostics[0].range,
            context=types.CodeActionContext(diagnostics=diagnostics),
        )
    )
    (create,) = [a for a in actions if a.title == "create `skills/new-method/SKILL.md`"]
    operations = create.edit.document_changes
    assert isinstance(operations[0], types.CreateFile)
    target = pathlib.Path(operations[0].uri.removeprefix("file://"))
    assert target == package / "skills/new-method/SKILL.md"
    target.parent.mkdir(parents=True)
    target.write_text(apply_edits("", operations[1].edits))
    assert target.read_text().startswith("---\nname: new-method\n")
    client.workspace_did_change_watched_files(
        types.DidChangeWatchedFilesParams(
            changes=[types.FileEvent(uri=target.as_uri(), type=types.FileChangeType.Created)]
        )
    )
    assert await published(client, doc.uri, forget=True) == []


async def test_definition_goes_from_refs_nodes_and_prompts_to_what_they_name(
    client: LanguageClient, package
):
    doc = await open_manifest(client, package)

    async def definition(needle, into=2, occurrence=0):
        result = await client.text_document_definition_async(
            doc.at(needle, into, occurrence, kind=types.DefinitionParams)
        )
        assert result, needle
        return result[0]

    skill = await definition('"release-review/shared/release-method"')
    assert skill.uri == (package / "skills/release-method/SKILL.md").as_uri()
    agent = await definition('"agent_id": "builder"', len('"agent_id": "b'))
    assert agent.range.start == doc.position('"builder": {', 0)
    node = await definition('"depends_on": ["requirements"]', len('"depends_on": ["r'))
    assert node.range.start == doc.position('"requirements": {', 0)
    prompt = await definition('"agents/builder/system.md"')
    assert prompt.uri == (package / "agents/builder/system.md").as_uri()
    tool = await definition('"release-review/shared/tracker/tool/list_issues"')
    tracker = (package / "mcp/tracker.jsonc").read_text()
    assert tool.uri == (package / "mcp/tracker.jsonc").as_uri()
    assert tool.range.start == position_of(tracker, tracker.index('"list_issues"'))


async def test_references_find_every_projection_of_a_skill_and_every_node_of_an_agent(
    client: LanguageClient, package
):
    doc = await open_manifest(client, package)
    skill = Doc(client, package / "skills/release-method/SKILL.md")
    found = await client.text_document_references_async(
        types.ReferenceParams(
            text_document=types.TextDocumentIdentifier(uri=skill.uri),
            position=types.Position(line=0, character=0),
            context=types.ReferenceContext(include_declaration=False),
        )
    )
    assert len(found) == 4
    assert {r.uri for r in found} == {doc.uri}
    lines = sorted(r.range.start.line for r in found)
    assert lines == sorted(doc.position('"release-review/shared/release-method"', 0, n).line for n in range(4))
    reviewer = await client.text_document_references_async(
        types.ReferenceParams(
            text_document=types.TextDocumentIdentifier(uri=doc.uri),
            position=doc.position('"reviewer": {'),
            context=types.ReferenceContext(include_declaration=True),
        )
    )
    assert len(reviewer) == 3  # the key and two nodes


async def test_completion_offers_what_the_package_and_the_role_tables_allow(
    client: LanguageClient, package
):
    doc = await open_manifest(client, package)

    async def labels(params):
        result = await client.text_document_completion_async(
            types.CompletionParams(text_document=params.text_document, position=params.position)
        )
        return [item.label for item in result.items]

    doc.replace('"agent_id": "builder"', '"agent_id": ""')
    agents = await labels(doc.at('"agent_id": ""', len('"agent_id": "')))
    assert sorted(agents) == ["builder", "requirements-analyst", "reviewer"]
    dependencies = await labels(doc.at('"depends_on": ["build", ', len('"depends_on": ["')))
    assert "security-review" in dependencies and "final-review" not in dependencies
    builder_tools = await labels(doc.at('"built_in_tool_ids": ["bash"', len('"built_in_tool_ids": [')))
    assert "write" in builder_tools and "bash" not in builder_tools  # listed already
    reviewer_tools = await labels(doc.at('"built_in_tool_ids": ["skill"]', len('"built_in_tool_ids": [')))
    # integrity may not run a shell; `skill` is listed already
    assert "bash" not in reviewer_tools and "skill" not in reviewer_tools
    assert "browser_preview" in reviewer_tools
    skills = await labels(doc.at('"package_skill_refs": ["release-review/builder', len('"package_skill_refs": [')))
    assert skills == ["release-review/shared/checklists/security"]
    roles = await labels(doc.at('"base_role": "build"', len('"base_role": "')))
    assert "deep-research" in roles and "orchestrator" not in roles
    doc.replace('"label": "Builder",', '"label": "Builder", "",')
    fields = await labels(doc.at('"label": "Builder", ""', len('"label": "Builder", "')))
    assert "execution_contract" in fields and "label" not in fields


async def test_hover_explains_fields_tools_refs_and_diagnostics(client: LanguageClient, package):
    doc = await open_manifest(client, package)

    async def hover(needle, into=2, occurrence=0):
        result = await client.text_document_hover_async(
            doc.at(needle, into, occurrence, kind=types.HoverParams)
        )
        assert result is not None, needle
        return result.contents.value

    assert "runs-commands" in await hover('"bash"')
    assert "runtime template" in await hover('"base_role"', 2, 1)
    assert "name: release-method" in await hover('"release-review/shared/release-method"')
    assert "Independent Reviewer" in await hover('"agent_id": "reviewer"', len('"agent_id": "r'))
    doc.replace('"version": "2026.11.30.1"', '"version": "2026.11.30.01"')
    await published(client, doc.uri, lambda d: len(d) > 0)
    text = await hover('"2026.11.30.01"')
    assert text.startswith("**invalid-version**"), text


async def test_rename_an_agent_moves_its_folder_and_keeps_the_package_valid(
    client: LanguageClient, package
):
    doc = await open_manifest(client, package)
    prepared = await client.text_document_prepare_rename_async(
        doc.at('"builder": {', kind=types.PrepareRenameParams)
    )
    assert prepared.placeholder == "builder"
    edit = await client.text_document_rename_async(
        doc.at('"builder": {', kind=types.RenameParams, new_name="constructor")
    )
    text_edit, folder = edit.document_changes
    assert isinstance(folder, types.RenameFile)
    assert folder.old_uri == (package / "agents/builder").as_uri()
    assert folder.new_uri == (package / "agents/constructor").as_uri()
    renamed = apply_edits(doc.text, text_edit.edits)
    for expected in ['"constructor": {', '"agent_id": "constructor"', '"agents/constructor/system.md"',
                     '"release-review/constructor/build-notes"', '"release-review/constructor/check-build"']:
        assert expected in renamed, expected
    assert "builder" not in renamed.replace("Builder", "")
    (package / "agents/builder").rename(package / "agents/constructor")
    doc.set_text(renamed)
    assert await published(client, doc.uri) == []
    # A taken name is refused with the reason.
    with pytest.raises(Exception, match="exists already"):
        await client.text_document_rename_async(
            doc.at('"constructor": {', kind=types.RenameParams, new_name="reviewer")
        )


async def test_rename_a_node_renames_its_dependencies(client: LanguageClient, package):
    doc = await open_manifest(client, package)
    edit = await client.text_document_rename_async(
        doc.at('"build": {', kind=types.RenameParams, new_name="compile")
    )
    (text_edit,) = edit.document_changes
    assert len(text_edit.edits) == 2
    doc.set_text(apply_edits(doc.text, text_edit.edits))
    assert '"depends_on": ["compile", "security-review"]' in doc.text
    assert await published(client, doc.uri) == []


async def test_a_neighbouring_document_outside_a_package_is_checked(client: LanguageClient, tmp_path):
    play = tmp_path / "fan-out.play.json"
    play.write_text(json.dumps({
        "schema": "agents.play@1",
        "id": "fan-out",
        "name": "Fan out",
        "summary": "s",
        "roles": [{"id": "lead", "does": "leads"}, {"id": "lead", "does": "again"}],
        "phases": [{"id": "one", "roles": ["lead"]}],
        "stop": {"when": "all-phases-done"},
    }, indent=2))
    doc = Doc(client, play)
    diagnostics = await published(client, doc.uri, lambda d: len(d) > 0)
    assert "play-role-dup" in codes(diagnostics)


async def test_documents_outside_a_package_and_unknown_methods_are_answered_calmly(
    client: LanguageClient, tmp_path
):
    notes = tmp_path / "notes.md"
    notes.write_text("# not a package\n")
    doc = Doc(client, notes)
    result = await client.text_document_hover_async(doc.at("not", kind=types.HoverParams))
    assert result is None
    with pytest.raises(Exception, match="no method"):
        await client.protocol.send_request_async("squad/noSuchMethod", {})
    # The server still answers.
    assert await client.text_document_completion_async(
        types.CompletionParams(text_document=types.TextDocumentIdentifier(uri=doc.uri),
                               position=types.Position(line=0, character=0))
    ) is None
