"""The op table (``table``), the recorder (``dispatch``) and the functions built on them
(``api``)."""
