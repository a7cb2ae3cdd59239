"""The store layer: the results store.  ``records``: checksummed file pairs, the store's
folders and manifest, provenance; ``sweep_record``: a stored setting's record, typed (no
other layer reads a record by key); ``sweeps``: a setting (what determines a stored result),
running settings into the store and loading them.  Imports only the engine."""
