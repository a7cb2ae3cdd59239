"""binn_utils: the engine of the executable edition of Crossley, Yin, Waters & Baker,
"Reliable mechanistic operator recovery with biologically-informed neural networks".

The folders are the layers; each imports only from its own layer or those below it
(CONTRIBUTING.md shows the picture, ``tests/test_layers.py`` checks it):

- ``engine`` (the PDEs and the BINN): ``problems`` (the five benchmark PDEs and their
  reference solutions), ``solvers`` (the data-generating numerical methods),
  ``observations`` (noise, grids, splits), ``networks`` (the four MLPs), ``losses``,
  ``training`` (the batched trainer), ``forward_solve`` (u_p; ``solve_workers``, its processes),
  ``metrics``, ``evaluation``;
- ``store`` (the results store): ``records`` (its checksummed file pairs), ``stores``
  (where they lie, the manifest, whether a missing one may be trained),
  ``provenance``, ``sweep_record`` (what a stored setting's record holds, typed),
  ``setting`` (a setting and its merge group), ``compute`` and ``runner`` (running settings,
  on ``clusters``), ``loading`` (loading them), ``migration`` and ``fits`` (stored fits);
- ``analysis``: ``verdicts`` (claims and their typed verdicts), ``reporting`` (numbers
  for the prose), ``diagnostics`` (failure diagnostics without ground truth; their
  thresholds, checks and calibration in ``diagnostic_*``), ``user_observations`` (reading
  and checking your own observations: ``user_csv``, ``user_arrays``, ``user_units``),
  ``user_data`` (fitting them), ``scratch`` (the scratch-assay example),
  ``authors_archive`` (the authors' archived runs);
- ``studies`` (the paper's experiments, one module per study, in a registry) and
  ``claims`` (the paper's claims checked across the registry);
- ``presentation``: ``plotting``, ``figures`` and the figure modules beside them (the only modules
  that draw; ``drawn_data``: everything a drawn figure draws, as the table linked under it),
  ``tables``, ``scorecard_text`` (the scorecard in words);
- ``applications``: ``cli`` (the ``binn`` command; ``arguments``, its argument types;
  ``fit_commands``, ``binn fit`` and ``binn predict``; ``interrupts``, Ctrl-C), ``fit_plan``,
  ``fit_report``, ``predict`` and ``fit_example`` (own data: the request, the report, predictions,
  a problem with a known answer) and ``notebook_parameters`` (the notebooks' parameters, checked by each
  notebook and ``make rerun``).

``from binn_utils import fit_user_data, fit_user_data_cached`` fits your own data (see
:mod:`binn_utils.analysis.user_data`); they are imported on first use, so ``import
binn_utils`` stays light.
"""
__version__ = "0.1.0"

#: Names importable from the package itself, and the module that defines each.
_PUBLIC = {"fit_user_data": "binn_utils.analysis.user_data", "fit_user_data_cached": "binn_utils.analysis.user_data"}


def __getattr__(name: str):
    if name in _PUBLIC:
        import importlib
        return getattr(importlib.import_module(_PUBLIC[name]), name)
    raise AttributeError(f"module 'binn_utils' has no attribute {name!r}")


def __dir__():
    return sorted([*globals(), *_PUBLIC])
