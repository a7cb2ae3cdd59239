"""The engine layer: the PDEs and the BINN (benchmarks, data, networks, losses, training,
forward solves, metrics, evaluation).  It imports nothing else of the package."""
