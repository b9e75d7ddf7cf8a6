"""Building tensor expressions by pointing (issue 8): what a gesture means, which ops are valid,
and the line of ordinary PyTorch code it writes. Qt-free; ``app/builder/`` draws the forms.

See ``docs/builder.md`` for the contract.
"""
