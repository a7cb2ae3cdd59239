"""The store layer: the results store.  Imports only the engine.

- ``records``: checksummed file pairs, the kinds of record they hold, the store's folders
  and manifest (where results are read and trained);
- ``provenance``: where a stored result comes from (commit, code fingerprint, machine);
- ``sweep_record``: a stored setting's record, typed (no other layer reads a record by
  key), and the checkpoints it evaluates (``reported``: the one the book reads);
- ``setting``: a setting (what determines a stored result), merge groups and their cost;
- ``compute``: training and evaluating one group (the task a sweep runs);
- ``clusters``: where the tasks run (Dask clusters and clients);
- ``runner``: running settings into the store (``binn sweep``);
- ``loading``: loading stored settings (``load_or_run``: what a chapter calls);
- ``migration``: ``binn migrate``;
- ``fits``: trained networks as a stored pair (the cached own-data fits).
"""
# The kinds of stored record (``records.KINDS``) are added by the modules that define them;
# importing them here makes the registry complete whichever store module is imported first.
from . import fits, setting  # noqa: F401
