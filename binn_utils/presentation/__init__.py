"""The presentation layer: the book's figures (``plotting``, ``figures`` and the figure modules
beside them: the only modules below the applications that draw; ``drawn_data``: everything a
drawn figure draws, as a table), tables and the scorecard's words.  Imports the studies,
the claims and everything below."""
