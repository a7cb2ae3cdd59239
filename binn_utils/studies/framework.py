"""Fig. 1: the ADR-BINN with default hyperparameters on the nonlinear ADR benchmark."""
from __future__ import annotations

from ..problems import INITIALS
from ..observations import DEFAULT_NOISE_VAR
from ..reporting import framework_summary
from ..sweeps import Setting, replicates
from .base import Study, count, preset, train_config

#: The three readings of the reaction term the chapter compares.
REACTION_READINGS = ("supporting", "text", "equation")


def build(scale="book", noise_var=DEFAULT_NOISE_VAR, dense=False, epochs=None, seeds=None,
          reaction="supporting", initial="code") -> list[Setting]:
    """Ten initialisations.  ``initial`` = "code" (default): the data the authors' code
    generated for the published figure (bumps of height 1 and 0.7); "text": the paper's
    Eq. ic-nl (heights 0.1 and 0.07), the same setting as the nonlinear ADR default run."""
    p = preset(scale)
    ds, ss = replicates(count("seeds", seeds, p["seeds"] if scale == "quick" else 10))
    return [Setting("framework", "default", "nonlinear_adr", noise_var, dense, ds, ss, train_config(p, epochs),
                    reaction=reaction, initial=initial)]


def chapter_settings(params) -> list[Setting]:
    """The chapter's runs: both initial conditions at ``preset``, the three readings of the
    reaction term at ``reaction_preset``."""
    nv = params["noise_var"]
    return ([build(params["preset"], noise_var=nv, reaction=params["reaction"], initial=init)[0]
             for init in INITIALS]
            + [build(params["reaction_preset"], noise_var=nv, reaction=rx, initial=params["initial"])[0]
               for rx in REACTION_READINGS])


STUDY = Study("framework", "framework", "nonlinear_adr", "nonlinear ADR", build, chapter="framework",
              paper_figure=1, figure="framework_figure", summary=framework_summary, chapter_settings=chapter_settings)
