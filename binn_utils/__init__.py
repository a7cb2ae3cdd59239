"""binn_utils: the engine of the executable edition of Crossley, Yin, Waters & Baker,
"Reliable mechanistic operator recovery with biologically-informed neural networks".

Modules follow the paper's concepts: ``benchmarks`` (the five PDEs and their reference
solutions), ``solvers`` (the data-generating numerical methods), ``observations`` (noise,
grids, splits), ``networks`` (the four MLPs), ``losses``, ``training`` (the batched
trainer), ``forward_solve`` (u_p), ``metrics``, ``evaluation``, ``sweeps`` (the results
store) and ``store`` (its checksummed file pairs), ``studies`` (the paper's experiments
and presets), ``diagnostics`` (failure diagnostics without ground truth), ``user_data``
(fitting your own observations), ``scratch`` (the scratch-assay example), ``plotting``,
``figures`` and ``reporting`` (the notebooks' panels and glued numbers), and ``cli`` (the
``binn`` command).
"""
__version__ = "0.1.0"
