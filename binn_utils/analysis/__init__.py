"""The analysis layer: what the stored results say (typed verdicts, numbers for the prose,
diagnostics without ground truth), fitting one's own data, the scratch-assay example and
the authors' archived runs.  Imports only the store and the engine."""
