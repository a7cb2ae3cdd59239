"""The presentation layer: the book's figures (``plotting``, ``figures``: the only modules
below the applications that draw), tables and the scorecard's words.  Imports the studies,
the claims and everything below."""
