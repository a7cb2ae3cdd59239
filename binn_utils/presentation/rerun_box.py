"""The box of a chapter that says how to rerun it (MyST, glued into each chapter): the command
that redraws its figures from the stored results, the `binn sweep` commands that train the
runs it reads, what those cost by the package's cost model (replicate-steps,
``store.setting.replicate_steps``, at the trainer's rates measured in README.md), and the
errata entries that bear on its figures.  The one home of these boxes: a chapter calls
:func:`rerun_box_md` and glues what it returns.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from ..analysis.reporting import and_list
from ..store.stores import committed_datasets, committed_scale
from ..store.setting import replicate_steps
from ..studies import get as get_study

#: The book's errata (numbered items, each opening with its title in bold).
ERRATA = Path(__file__).resolve().parents[2] / "book" / "errata.md"

#: Seconds per replicate-step of the trainer, from README.md's measurements (engine version 2, float32):
#: on the two-core CPU machine with both cores busy (R = 50 over 2 processes, machine-wide), and on
#: one NVIDIA H100 (R = 200, CUDA graphs), by solution network and grid. The (6, 128) solution
#: network costs more per step: on the CPU by README's ratio at R = 10 (2066.0 against 185.9 us).
CPU_SECONDS = 94.8e-6
CPU_CORES = 2
CPU_WIDE_FACTOR = 2066.0 / 185.9
GPU_SECONDS = {((4, 32), False): 2.68e-6, ((4, 32), True): 2.43e-6, ((6, 128), False): 12.13e-6,
               ((6, 128), True): 12.13e-6}
GPU_NAME = "one NVIDIA H100"


@dataclass(frozen=True)
class Runs:
    """One `binn sweep` command: a study at a scale, with its options (datasets, the authors'
    data, the dense grid, a noise level)."""

    study: str
    scale: str
    datasets: int | None = None
    data: str = "ours"
    dense: bool = False
    noise_var: float | None = None
    options: dict = field(default_factory=dict, compare=False)

    def command(self) -> str:
        out = f"binn sweep {self.study} --scale {self.scale}"
        if self.noise_var is not None:
            out += f" --noise-var {self.noise_var:g}"
        if self.dense:
            out += " --dense"
        if self.datasets:
            out += f" --datasets {self.datasets}"
        if self.data != "ours":
            out += f" --data {self.data}"
        return out

    def settings(self) -> list:
        kw = {k: v for k, v in (("datasets", self.datasets), ("noise_var", self.noise_var)) if v is not None}
        return get_study(self.study).settings(self.scale, dense=self.dense, **kw)


def committed_runs(name: str) -> list[Runs]:
    """The commands that train study ``name``'s committed main-text runs (results/manifest.json):
    on our data, on the authors' rebuilt data and on the 351-point grid, where stored."""
    scale = committed_scale(name)
    out = [Runs(name, scale, committed_datasets(name))]
    if committed_datasets(name, "authors"):
        out.append(Runs(name, scale, committed_datasets(name, "authors"), data="authors"))
    if committed_datasets(name, "dense"):
        out.append(Runs(name, scale, committed_datasets(name, "dense"), dense=True))
    return out


def cost(runs: list[Runs]) -> dict:
    """Replicate-steps of ``runs`` (settings shared by two commands counted once) and the time
    they take by the README's rates: hours of the two-core CPU machine, core-hours, GPU minutes."""
    seen, steps, cpu_s, gpu_s = set(), 0, 0.0, 0.0
    for r in runs:
        for s in r.settings():
            key = (s.key, r.data)
            if key in seen:
                continue
            seen.add(key)
            n = replicate_steps(s)
            wide = tuple(s.config.arch_u) != (4, 32)
            steps += n
            cpu_s += n * CPU_SECONDS * (CPU_WIDE_FACTOR if wide else 1.0)
            gpu_s += n * GPU_SECONDS[((6, 128) if wide else (4, 32), bool(s.dense))]
    return {"steps": steps, "cpu_hours": cpu_s / 3600, "core_hours": cpu_s * CPU_CORES / 3600,
            "gpu_minutes": gpu_s / 60}


def errata_items(figures=(), chapters=()) -> list[tuple[int, str]]:
    """(number, title) of the errata items that name one of the paper's ``figures`` (also
    within a range, "Figs. 2-6") or link one of the book's ``chapters`` ({doc}`/notebooks/NAME`)."""
    text = ERRATA.read_text(encoding="utf-8")
    items = re.split(r"\n(?=\d+\. \*\*)", text)
    out = []
    for item in items:
        item = re.split(r"\n(?=## |<!--)", item)[0]      # the item alone, not the section text after it
        head = re.match(r"(\d+)\. \*\*(.+?)\*\*", item, flags=re.S)
        if not head:
            continue
        named = set()
        # "Fig. 3", "Figs. 3-5", "Figure 3"; never the authors' folder names ("Fig6": their numbering)
        for m in re.finditer(r"\bFig(?:ure|s)?(?:\.\s*|\s+)(\d+)(?:\s*(?:-|–|--|to)\s*(\d+))?(?:\s+and\s+(\d+))?",
                             item):
            lo = int(m.group(1))
            named.update(range(lo, int(m.group(2) or lo) + 1), [int(m.group(3))] if m.group(3) else [])
        linked = any(f"/notebooks/{c}" in item or f"/book/supporting/{c}" in item for c in chapters)
        if named & set(figures) or linked:
            out.append((int(head.group(1)), " ".join(head.group(2).split()).rstrip(".")))
    return sorted(out)


def duration_words(hours: float) -> str:
    """A duration in words, with "about" where it is an estimate: 'under a minute', 'about 1 minute',
    'about 35 minutes', 'about 1.3 hours', 'about 18 hours'."""
    minutes = hours * 60
    if minutes < 1:
        return "under a minute"
    if round(minutes) < 60:
        return f"about {round(minutes)} minute{'s' if round(minutes) != 1 else ''}"
    return f"about {hours:.1f} hours" if hours < 10 else f"about {hours:,.0f} hours"


def rerun_box_md(notebook: str, runs: list[Runs], figures=(), chapters=(), params: str = "") -> str:
    """The chapter's rerun box (MyST admonition): `make rerun` for ``notebook`` (with papermill
    ``params``, e.g. '-p noise_var 0.01'), the `binn sweep` commands of ``runs``, their cost, and
    the errata items on the paper's ``figures`` or linking ``chapters`` (default: the notebook)."""
    c = cost(runs)
    make = f"make rerun NB={notebook}" + (f' PARAMS="{params}"' if params else "") + " OUT=out/rerun"
    commands = list(dict.fromkeys(r.command() for r in runs))
    items = errata_items(figures, chapters or (notebook,))
    lines = ["````{admonition} Rerun this chapter", ":class: note dropdown", "",
             "Redraw its figures and tables from the stored results (no training):", "", "```bash", make, "```", "",
             "Train the runs it reads (resumable: a sweep stopped part-way continues where it stopped):", "",
             "```bash", *commands, "```", "",
             f"Cost by the package's cost model: {c['steps'] / 1e6:,.1f} million replicate-steps (one optimiser "
             f"step of one network). That is about {c['core_hours']:,.1f} core-hours on two CPU cores "
             f"({duration_words(c['cpu_hours'])} with both busy), or {duration_words(c['gpu_minutes'] / 60)} on "
             f"{GPU_NAME}, at the trainer's speed measured in the README (training only; the forward "
             "solves come on top)."]
    if items:
        lines += ["", "The errata that bear on these figures: "
                  + and_list(f"{{doc}}`item {n} </book/errata>` ({title})" for n, title in items) + "."]
    lines.append("````")
    return "\n".join(lines)


def chapter_rerun_md(notebook: str, study_names) -> str:
    """:func:`rerun_box_md` of a main-text chapter: the committed runs of its studies
    (:func:`committed_runs`) and the paper's figures they repeat."""
    names = list(study_names)
    figures = tuple(f for f in (get_study(n).paper_figure for n in names) if f)
    return rerun_box_md(notebook, [r for n in names for r in committed_runs(n)], figures)
