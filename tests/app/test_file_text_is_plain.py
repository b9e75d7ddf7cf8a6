"""Text from a .gstep file (title, description, notes) reaches the screen as plain text: the
banner escapes it, and no link in it can act (only the banner's own links do)."""

from __future__ import annotations

from engine.files import GraphFile, recovery

ATTACK = '<a href="discard">click</a> and <b>bold</b>'


def _offer(monkeypatch, slot, gf):
    """Recovered work offered in the banner (this process's own autosave, listed as a crash's)."""
    recovery.autosave(gf, slot=slot)
    entry = next(e for e in recovery.list_recovered(include_running=True) if e.slot == slot)
    monkeypatch.setattr(recovery, "list_recovered", lambda **_: [entry])
    return entry


def _open(window, qtbot, **fields):
    from tests.app.window_support import wait_idle

    gf = GraphFile(script="import torch\nx = torch.ones(2)\ny = x * 2\n", **fields)
    assert window.documents.open_graph_file(gf, path=None, run_to_first_breakpoint=False)
    wait_idle(qtbot, window)
    return gf


def test_note_shows_literally_and_its_link_does_nothing(window, qtbot, monkeypatch):
    _open(window, qtbot, title='<b>T</b>', notes={2: ATTACK})
    # recovered work waiting in the banner's offer: a note's link must not discard it
    entry = _offer(monkeypatch, "plain-text-test", GraphFile(script="x = 1\n", title="<i>o</i>"))
    try:
        docs = window.documents
        docs.offer_recovery()
        assert "&lt;i&gt;o&lt;/i&gt;" in window.note_banner.text()
        assert docs._recovery_entry is entry
        docs.show_note(2, "breakpoint at line 2")
        text = window.note_banner.text()
        assert "&lt;a href=&quot;discard&quot;&gt;click&lt;/a&gt;" in text
        assert "&lt;b&gt;bold&lt;/b&gt;" in text
        assert '<a href="discard">' not in text and "<b>bold</b>" not in text
        # what a click on the literal text would send, and the old scheme's word: nothing acts
        docs._recovery_entry = entry
        window.note_banner.linkActivated.emit("discard")
        window.note_banner.linkActivated.emit("recover")
        assert docs._recovery_entry is entry
        assert entry.path.exists()
        assert window.windowTitle().startswith("<b>T</b>")  # a window title is plain text
    finally:
        recovery.discard("plain-text-test")


def test_the_banners_own_links_still_act(window, monkeypatch):
    from app.documents import BANNER_DISCARD

    entry = _offer(monkeypatch, "plain-text-own", GraphFile(script="x = 1\n"))
    try:
        docs = window.documents
        docs.offer_recovery()
        assert docs._recovery_entry is entry and BANNER_DISCARD in window.note_banner.text()
        window.note_banner.linkActivated.emit(BANNER_DISCARD)
        assert docs._recovery_entry is None
        assert not entry.path.exists()
    finally:
        recovery.discard("plain-text-own")


def test_open_error_message_is_escaped(window):
    window.documents.report_open_error("<b>x</b>.gstep", "bad <a href='discard'>field</a>")
    text = window.note_banner.text()
    assert "&lt;a href=&#x27;discard&#x27;&gt;" in text and "<a href='discard'>" not in text
