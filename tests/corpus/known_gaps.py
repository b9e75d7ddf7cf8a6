"""Programs of the corpus known to fail today, by path: {(program, path): reason}.

test_corpus.py marks these xfail(strict=True): when a gap is fixed its test XPASSes and
fails, and the entry must be removed here and from KNOWN_GAPS.md (test_corpus checks that
both list the same entries). The reason is the cause, then the first failure seen.
Only the first failure of each run is known: fixing it may uncover the next one.
"""

KNOWN_GAPS = {
    ('102_d2l_sequence_models', 'engine'):
        'assigning a tensor of shape (1, 1) into a 0-d slot unsupported -- engine failed: ValueError: setting an array element with a sequence. (line 95)',
    ('102_d2l_sequence_models', 'interpreter'):
        'assigning a tensor of shape (1, 1) into a 0-d slot unsupported -- interpreter failed: ScriptError(runtime) line 95: ValueError: setting an array element with a sequence.',
}
