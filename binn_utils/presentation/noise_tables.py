"""The noise chapter's (Fig. 2) tables and sentences on its two u-networks: how they trained
(epochs, initialisations, datasets), their spreads as claim 3 compares them, and the error of
the other network's learned diffusivity (numbers from ``studies.noise``; formatting and wording
here, as in :mod:`binn_utils.presentation.tables`)."""
from __future__ import annotations

import numpy as np

from ..analysis.reporting import and_list, arch_label, fmt


def diffusivity_against_words(c: dict, shown: str) -> str:
    """The other u-network's error of D against that of the network ``shown``
    (``c``: ``studies.noise.diffusivity_against``)."""
    ratio = c["ratio"]
    if not np.isfinite(ratio):
        return "n/a"
    return (f"{fmt(ratio, '.2g')} times that of {shown} "
            f"({'larger' if ratio > 1 else 'smaller' if ratio < 1 else 'the same'}), with an interquartile "
            f"range {fmt(c['iqr_other'], '.2g')} against {fmt(c['iqr_shown'], '.2g')}")


def budget_words(differ: tuple, datasets: tuple = ()) -> str:
    """Whether the noise study's networks trained alike: ``differ`` names what differed
    between them ("epochs", "initialisations" per dataset, "datasets";
    ``studies.noise.budget_differences``), ``datasets`` how their datasets differ
    (``studies.noise.shared_datasets``: each network's label and number, then the number shared);
    nothing where ``datasets`` names fewer than two networks (a run of one network)."""
    if datasets and len(datasets) < 3:
        return ""
    if set(differ) - {"datasets"}:
        what = and_list("initialisations per dataset" if w == "initialisations" else w for w in differ)
        return (f"The networks had different numbers of {what} (the larger one costs far more per step), so their "
                "boxes and curves are not a like-for-like comparison.")
    if "datasets" not in differ:
        return "Both networks had the same datasets, epochs and initialisations."
    *nets, shared = datasets
    (few, n_few), (many, n_many) = sorted(nets, key=lambda net: net[1])
    ran = (f"{few} ran on {n_few} of the {n_many} datasets of {many}" if shared == n_few else
           f"{nets[0][0]} ran on {nets[0][1]} datasets and {nets[1][0]} on {nets[1][1]}, {shared} of them the same")
    return (f"Both networks had the same epochs and initialisations on each dataset; {ran} (the larger network "
            f"costs far more per step). Each box pools its own network's datasets; the verdicts that compare the "
            f"two networks (claim 3) use only the {shared} datasets they share.")


def network_spread_table(theta: dict, up: dict, archs) -> str:
    """Claim 3's spreads, as the scorecard decides them (``studies.noise.spread_comparison``):
    per nonzero noise level the IQR of each u-network's errors over the datasets both ran,
    with its bootstrap interval, and the verdict on "the first less variable"."""
    a, b = (arch_label(x) for x in archs)
    rows = [f"| $\\sigma^2$ | IQR $u_\\theta$, {a} | {b} | verdict | IQR $u_\\mathrm{{p}}$, {a} | {b} | verdict |",
            "|---|---|---|---|---|---|---|"]
    for nv in sorted(set(theta) | set(up)):
        cells = []
        for d in (theta, up):
            v, ia, ib = d.get(nv, (None, None, None))
            cells += [str(ia), str(ib), v.value if v is not None else "n/a"]
        rows.append(f"| {nv:g} | " + " | ".join(cells) + " |")
    return "\n".join(rows)
