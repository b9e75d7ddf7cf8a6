# expect: forbidden line 2
hook = object.__init_subclass__
