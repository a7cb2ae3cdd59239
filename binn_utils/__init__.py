"""binn_utils: the engine of the executable edition of Crossley, Yin, Waters & Baker,
"Reliable mechanistic operator recovery with biologically-informed neural networks".

Modules follow the paper's concepts: ``problems`` (the five benchmark PDEs and their reference
solutions), ``solvers`` (the data-generating numerical methods), ``observations`` (noise,
grids, splits), ``networks`` (the four MLPs), ``losses``, ``training`` (the batched
trainer), ``forward_solve`` (u_p), ``metrics``, ``evaluation``, ``sweeps`` (the results
store) and ``store`` (its checksummed file pairs), ``studies`` (the paper's experiments,
one module per study, in a registry), ``claims`` (the paper's claims checked across the
registry), ``verdicts`` (claims and their typed verdicts),
``diagnostics`` (failure diagnostics without ground truth), ``user_data`` (fitting your own
observations), ``scratch`` (the scratch-assay example), ``reporting`` (numbers for the
prose), ``plotting`` and ``figures`` (the only modules that draw), ``scorecard_text`` (the
scorecard in words), and ``cli`` (the
``binn`` command).  CONTRIBUTING.md shows how the layers import and how to add a study.
"""
__version__ = "0.1.0"
