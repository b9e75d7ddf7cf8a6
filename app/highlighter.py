"""Python syntax colouring from Pygments' PythonLexer tokens.

Pygments lexes the whole document (scripts are small) once per edit; each block then takes the
tokens that fall on its line. A block's state records whether it ends inside a multi-line string,
so Qt re-colours the following lines when an edit opens or closes one.
"""

from __future__ import annotations

from pygments.token import Comment, Keyword, Name, Number, Operator, String, Token
from PySide6.QtGui import QColor, QFont, QSyntaxHighlighter, QTextCharFormat, QTextDocument

# Token type -> (light colour, dark colour, bold, italic); the first matching ancestor wins.
_STYLE = (
    (Comment, "#6a737d", "#7f8c98", False, True),
    (String, "#a31515", "#ce9178", False, False),
    (Number, "#098658", "#b5cea8", False, False),
    (Keyword.Constant, "#0000ff", "#569cd6", False, False),
    (Keyword, "#af00db", "#c586c0", True, False),
    (Operator.Word, "#af00db", "#c586c0", True, False),
    (Name.Builtin, "#267f99", "#4ec9b0", False, False),
    (Name.Function, "#795e26", "#dcdcaa", False, False),
    (Name.Class, "#267f99", "#4ec9b0", True, False),
    (Name.Decorator, "#795e26", "#dcdcaa", False, False),
    (Name.Namespace, "#267f99", "#4ec9b0", False, False),
)


def _formats(dark: bool) -> list[tuple[object, QTextCharFormat]]:
    table = []
    for token, light_colour, dark_colour, bold, italic in _STYLE:
        fmt = QTextCharFormat()
        fmt.setForeground(QColor(dark_colour if dark else light_colour))
        if bold:
            fmt.setFontWeight(QFont.Weight.DemiBold)
        fmt.setFontItalic(italic)
        table.append((token, fmt))
    return table


class PygmentsHighlighter(QSyntaxHighlighter):
    """Colours a QTextDocument with Pygments' Python tokens."""

    def __init__(self, document: QTextDocument, *, dark: bool = False) -> None:
        from pygments.lexers.python import PythonLexer

        self._lexer = PythonLexer(stripnl=False, ensurenl=False)
        self._table = _formats(dark)
        self._by_type: dict[object, QTextCharFormat | None] = {}
        self._text: str | None = None
        self._lines: list[list[tuple[int, int, QTextCharFormat]]] = []
        self._open_string_lines: set[int] = set()
        super().__init__(document)

    def set_dark(self, dark: bool) -> None:
        self._table = _formats(dark)
        self._by_type.clear()
        self._text = None
        self.rehighlight()

    def _format_for(self, token_type) -> QTextCharFormat | None:
        if token_type not in self._by_type:
            found = None
            for token, fmt in self._table:
                if token_type in token:
                    found = fmt
                    break
            self._by_type[token_type] = found
        return self._by_type[token_type]

    def _lex_document(self) -> None:
        # The revision number restarts with setPlainText; the text itself says if it changed.
        text = self.document().toPlainText()
        if text == self._text:
            return
        self._text = text
        lines: list[list[tuple[int, int, QTextCharFormat]]] = [
            [] for _ in range(text.count("\n") + 1)]
        open_strings: set[int] = set()
        line, col = 0, 0
        for token_type, value in self._lexer.get_tokens(text):
            fmt = self._format_for(token_type) if token_type is not Token.Text else None
            parts = value.split("\n")
            for i, part in enumerate(parts):
                if i:
                    if fmt is not None and token_type in String:
                        open_strings.add(line)
                    line, col = line + 1, 0
                if fmt is not None and part and line < len(lines):
                    lines[line].append((col, len(part), fmt))
                col += len(part)
        self._lines = lines
        self._open_string_lines = open_strings

    def highlightBlock(self, text: str) -> None:
        self._lex_document()
        number = self.currentBlock().blockNumber()
        if number < len(self._lines):
            for start, length, fmt in self._lines[number]:
                self.setFormat(start, length, fmt)
        self.setCurrentBlockState(1 if number in self._open_string_lines else 0)
