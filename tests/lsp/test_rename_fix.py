"""`toolgate lsp` driven by pytest-lsp (a client outside the project): a skill calling a
renamed tool gets the diagnostic, the quick fix's WorkspaceEdit is applied as an editor
applies it, and the diagnostic goes.

Run by tests/lsp_e2e.rs with TOOLGATE_BIN (the binary) and TOOLGATE_CASE (a folder holding
a toolgate.toml, its catalog and SKILL.md, a copy of skills-fixtures/renames-declared).
"""

import os
import pathlib

import pytest_lsp
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities

TOOLGATE = os.environ["TOOLGATE_BIN"]
CASE = pathlib.Path(os.environ["TOOLGATE_CASE"]).resolve()


@pytest_lsp.fixture(config=ClientServerConfig(server_command=[TOOLGATE, "lsp", "--stdio"]))
async def client(lsp_client: LanguageClient):
    await lsp_client.initialize_session(
        types.InitializeParams(
            capabilities=client_capabilities("visual-studio-code"),
            root_uri=CASE.as_uri(),
        )
    )
    yield
    await lsp_client.shutdown_session()


def apply(text: str, edits: list[types.TextEdit]) -> str:
    """Applies edits (UTF-16 positions, the default encoding) from the last to the first."""
    lines = text.split("\n")

    def offset(pos: types.Position) -> int:
        before = sum(len(l) + 1 for l in lines[: pos.line])
        line = lines[pos.line]
        units = 0
        for i, ch in enumerate(line):
            if units >= pos.character:
                return before + i
            units += 2 if ord(ch) > 0xFFFF else 1
        return before + len(line)

    for e in sorted(edits, key=lambda e: (e.range.start.line, e.range.start.character), reverse=True):
        text = text[: offset(e.range.start)] + e.new_text + text[offset(e.range.end) :]
    return text


async def diagnostics_for(client: LanguageClient, uri: str):
    """Waits for the server's next diagnostics (one document is open: they are its)."""
    await client.wait_for_notification(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    return client.diagnostics[uri]


async def test_a_renamed_tool_is_reported_and_fixed(client: LanguageClient):
    path = CASE / "SKILL.md"
    uri = path.as_uri()
    text = path.read_text(encoding="utf-8")
    client.text_document_did_open(
        types.DidOpenTextDocumentParams(
            text_document=types.TextDocumentItem(uri=uri, language_id="markdown", version=1, text=text)
        )
    )
    found = await diagnostics_for(client, uri)
    renamed = [d for d in found if d.code == "renamed-tool"]
    assert len(renamed) == 1, found
    assert renamed[0].source == "toolgate"
    assert "renamed to `note_search`" in renamed[0].message

    actions = await client.text_document_code_action_async(
        types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            range=renamed[0].range,
            context=types.CodeActionContext(diagnostics=[renamed[0]]),
        )
    )
    fixes = [a for a in actions if isinstance(a, types.CodeAction) and a.edit and a.is_preferred]
    assert fixes, actions
    fixed = apply(text, fixes[0].edit.changes[uri])
    assert "find_notes" not in fixed and "note_search(query=" in fixed

    client.text_document_did_change(
        types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=2),
            content_changes=[types.TextDocumentContentChangeWholeDocument(text=fixed)],
        )
    )
    after = await diagnostics_for(client, uri)
    assert not [d for d in after if d.code == "renamed-tool"], after
    # The other findings of the file are still there (a fix removes only its own).
    assert [d for d in after if d.code == "unknown-field"], after
