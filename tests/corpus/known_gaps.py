"""Programs of the corpus known to fail today, by path: {(program, path): reason}.

test_corpus.py marks these xfail(strict=True): when a gap is fixed its test XPASSes and
fails, and the entry must be removed here and from KNOWN_GAPS.md (test_corpus checks that
both list the same entries). The reason is the cause, then the first failure seen.
Only the first failure of each run is known: fixing it may uncover the next one.
"""

KNOWN_GAPS = {
}
