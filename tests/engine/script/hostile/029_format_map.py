# expect: forbidden
s = '{a.__class__}'.format_map({'a': 1})
