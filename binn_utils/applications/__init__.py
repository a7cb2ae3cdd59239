"""The applications layer: the ``binn`` command (``cli``) and the own-data reports
(``fit_report``: ``binn fit``, ``binn predict``).  The notebooks sit on top."""
