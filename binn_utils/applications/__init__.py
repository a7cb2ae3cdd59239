"""The applications layer: the ``binn`` command (``cli``, ``arguments``, ``fit_commands``,
``interrupts``) and own data (``fit_plan``: a ``binn fit`` request; ``fit_report``: its files;
``predict``: ``binn predict``; ``fit_example``: a problem with a known answer).  The notebooks
sit on top."""
