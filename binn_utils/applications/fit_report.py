"""``binn fit``'s report: a practitioner's own data, from a validated request to its files.

:func:`run_fit` trains what a request (``fit_plan.plan_fit``) does not find stored, and
:func:`write_fit_outputs` writes into the output folder:

==================  ===========================================================================
``operators.csv``   u in the user's units; per learned operator the median, 25th and 75th
                    percentiles and standard deviation over the networks; ``observed`` = 0
                    where u lies outside the observed range (extrapolation)
``solutions.npz``   x, t, the data (n_rep, n_t, n_x), u_theta and u_p (R, n_t, n_x; u_p NaN
                    where the forward solve failed) and the solves' statuses
``solutions.png``   data against u_theta and u_p at every observation time
``operators.png``   the learned operators, the unobserved range of u shaded
``losses.png``      validation and training losses
``diagnostics.md``  the ground-truth-free checks, each with its threshold and deciding value
``report.html``     one self-contained page with all of the above (figures embedded)
``fit.json``        the full specification, versions, commit, data digest, scaling, files
``networks/``       the trained networks (``<key>.npz`` / ``.json``) that ``binn predict`` uses
==================  ===========================================================================

``binn predict`` reads such a folder (``applications.predict``).
"""
from __future__ import annotations

import base64
import html
import json
import os
import shutil
import tempfile
import time
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np

from ..analysis import diagnostic_roc, identifiability_words
from ..analysis import fit_identifiability as fit_ident
from ..analysis.reporting import fmt
from ..analysis.user_data import UserFit
from ..presentation import figures, plotting
from ..store import fits, provenance, records
from .fit_plan import OUTPUT_FILES, FitPlan, train_or_load
from .predict import operator_table, write_operator_table

__all__ = ["OUTPUT_FILES", "run_fit", "write_fit_outputs", "fit_figures", "fit_identifiability", "diagnostics_markdown",
           "report_html", "network_failures", "training_failure", "tag_failed", "FAILED_TAG"]


DIAGNOSTIC_HELP = {
    "underfitting": "Is training finished? Share of the validation loss's decrease made in the last "
                    "part of training, or a network that fits the data no better than their mean.",
    "instability": "Did training behave? Roughness of the validation loss, diverged or blown-up networks.",
    "overfitting": "Did the validation loss come back up after its minimum?",
    "mechanistic_mismatch": "Do the learned operators reproduce the data? The forward solve u_p (learned "
                            "D, V, G and initial condition only) against u_theta, both against the data.",
    "operator_spread": "Do independent initialisations agree on the operators over the observed range of u?",
    "loss_balance": "Do the data and PDE terms both shape the fit? Ratio of the weighted losses at the end.",
}



def _num(v) -> str:
    """A diagnostic's number as it is (the package's one formatter, literal)."""
    return fmt(v, literal=True)

def run_fit(plan: FitPlan, *, workers=None, scheduler=None, progress=True, require_stored=None,
            echo=print) -> tuple[UserFit, dict]:
    """:func:`train_or_load`, then write every output file; returns the fit and {name: path}
    of the files written."""
    t0 = time.perf_counter()
    fit = train_or_load(plan, workers=workers, scheduler=scheduler, progress=progress,
                        require_stored=require_stored)
    echo(f"networks: {'trained ' + str(fit.trained) if fit.trained else 'loaded from the store, nothing trained'}"
         f" ({fit.cache_files[0]})")
    files = write_fit_outputs(fit, plan, seconds=time.perf_counter() - t0)
    return fit, files


# ----------------------------------------------------------------------------- outputs
def _operator_grid(fit: UserFit, n: int = 101, extend: float = 0.2) -> np.ndarray:
    lo, hi = fit.u_range
    pad = extend * (hi - lo)
    return np.linspace(min(0.0, lo) if lo >= 0 else lo - pad, hi + pad, n)


def _thr(v) -> str:
    if isinstance(v, dict):
        return ", ".join(f"{k.replace('_', ' ')} {_num(x)}" for k, x in v.items())
    return _num(v)


def network_failures(fit: UserFit) -> dict:
    """{"diverged", "blown up", "collapsed": [networks]} of a fit
    (:func:`fit_identifiability.network_failures` of its diagnostics and learned solutions)."""
    obs = np.stack([o.u_obs for o in fit.observations])
    return fit_ident.network_failures(fit.report.diagnostics, fit.evaluation.u_theta, obs)


def failed_networks(fit: UserFit) -> set:
    """The networks whose training failed: a status other than ok, diverged or blown up."""
    bad = network_failures(fit)
    return {i for i, s in enumerate(fit.result.status) if s != "ok"} | set(bad["diverged"]) | set(bad["blown up"])


def training_failure(fit: UserFit) -> str | None:
    """One sentence where training failed (a network diverged or blew up), else None: such a fit
    says so in every line of its report, and ``binn fit`` exits non-zero."""
    bad = network_failures(fit)
    n = fit.result.n_replicates
    words = [f"{len(bad[k])} of {n} networks {w}" for k, w in (("diverged", "diverged"), ("blown up", "blew up"))
             if bad[k]]
    return ("the fit failed: " + " and ".join(words) + "; lower the learning rate (--lr) or raise the batch size "
            "(--batch-size)") if words else None


def fit_identifiability(fit: UserFit, units: dict | None = None):
    """How strongly the user's data constrain each learned operator
    (:func:`fit_identifiability.learned_identifiability`, training units; the noise from the
    data: the between-replicate spread -- of their mean when the mean was fitted -- or the
    scatter of neighbouring points; with replicates fitted separately, every replicate's
    chi-square counts; the fit check told which networks diverged, blew up or collapsed).
    ``units``: the data's units by name ("u"), for sigma in the words."""
    obs = fit.observations[0]
    sd, how = fit.data.noise_sd, "the measurements' between-replicate standard deviation"
    if sd is not None:
        n = fit.data.n_replicates
        if fit.replicates_mode == "mean" and n > 1:
            sd, how = sd / np.sqrt(n), (f"the noise of the mean of the {n} replicates fitted (their "
                                        f"between-replicate standard deviation, {_num(sd)}, over sqrt({n}))")
        sd = sd / fit.scaling.u_factor
    ev = fit.evaluation
    u_obs = (np.stack([o.u_obs for o in fit.observations]) if fit.replicates_mode == "separate" else obs.u_obs)
    bad = network_failures(fit)
    und = fit.report.diagnostics.get("underfitting")
    dof = fit.data.u[0].size * (fit.data.n_replicates - 1) if sd is not None else float("inf")
    return fit_ident.learned_identifiability(ev.operators, ev.u_grid, obs.x, obs.t, u_obs,
                                             replicate_sd=sd, replicate_how=how, replicate_dof=dof, u_factor=fit.scaling.u_factor,
                                             u_unit=(units or {}).get("u") or "", n_networks=fit.result.n_replicates,
                                             diverged=bad["diverged"], blown_up=bad["blown up"],
                                             collapsed=bad["collapsed"], still_falling=bool(und and und.flag))


def identifiability_markdown(fit: UserFit, units: dict | None = None) -> str:
    """The report's identifiability section; where the fit check refuses the fit (it diverged,
    blew up or collapsed, cannot be solved forward, or does not fit the data) or the section
    cannot be computed, the lines that say so and what to try, never a traceback that takes the
    rest of the report with it.  ``units``: the data's units by name."""
    try:
        c = fit_identifiability(fit, units)
    except fit_ident.FitRefused as exc:
        fc = exc.check
        return identifiability_words.unmeasured_markdown(f"the fit check refused the fit: {fc.reason}", fc.advice,
                                                   fc.failed_training)
    except (ValueError, RuntimeError, FloatingPointError, ArithmeticError) as exc:
        return identifiability_words.unmeasured_markdown(str(exc))
    factors = {k: fit.scaling.operator_factor(k) for k in c.operators}
    return identifiability_words.fit_markdown(c, {k: (factors[k], (units or {}).get(k) or "") for k in c.operators})


#: the start of every line of the report of a fit whose training failed (diverged or blew up)
FAILED_TAG = "FIT FAILED - "


def tag_failed(md: str, failure: str | None) -> str:
    """``md`` with every line that has words (headings, paragraphs, table rows' first cells)
    saying that the fit failed, where ``failure`` (:func:`training_failure`) says it did."""
    if not failure:
        return md
    out = []
    for ln in md.splitlines():
        if ln.startswith("#"):
            ln = f"{ln} ({FAILED_TAG}{failure.removeprefix('the fit failed: ')})"
        elif ln.startswith("|---") or not ln.strip():
            pass
        elif ln.startswith("| "):
            ln = f"| {FAILED_TAG}{ln[2:]}"
        else:
            ln = FAILED_TAG + ln
        out.append(ln)
    return "\n".join(out) + ("\n" if md.endswith("\n") else "")


def diagnostics_markdown(fit: UserFit, units: dict | None = None) -> str:
    """The diagnostics of a fit, then its identifiability section (``units``: the data's units
    by name, for the numbers of that section)."""
    rep = fit.report
    held = diagnostic_roc.stored_summary(n_boot=0)
    u_unit = f" {(units or {}).get('u')}" if (units or {}).get("u") else ""
    lines = [f"# Diagnostics of the fit ({rep.n_replicates} networks, {rep.n_epochs} epochs)", "",
             "Ground-truth-free checks (`binn_utils.analysis.diagnostics`): each has a number, the threshold it is "
             "compared with, and a flag. Observed range of u (where the operators are identifiable): "
             f"[{_num(rep.u_range[0])}, {_num(rep.u_range[1])}]{u_unit}. How far to trust a flag: on the "
             f"{held['n']} networks trained for the book, whose truth is known, the share of failures each "
             "diagnostic catches and of fine networks it flags (false alarms), at the threshold used here and "
             "held out (a threshold chosen on four benchmarks, counted on the fifth; the book's chapter on "
             "diagnosing failure without ground truth).", "",
             "| diagnostic | value | threshold | flag | caught / false alarms at this threshold "
             "| held out: caught / false alarms | what it checks | what it says |", "|---|---|---|---|---|---|---|---|"]

    def rates(c):
        return f"{diagnostic_roc.pct(c.caught_rate)} / {diagnostic_roc.pct(c.false_alarm_rate)}"
    for d in rep.diagnostics.values():
        v = held["per"][d.name]
        lines.append(f"| {d.name.replace('_', ' ')} | {_num(d.value)} | {_thr(d.threshold)} | "
                     f"{'**FLAG**' if d.flag else 'ok'} | {rates(v['module'])} | {rates(v['held'].pooled)} | "
                     f"{DIAGNOSTIC_HELP.get(d.name, '')} | {d.message.replace('|', '/')} |")
    h = held["per"][diagnostic_roc.COMBINED]["held"].pooled
    lines += ["", "Columns: value, the check's number (a ratio, a share or a coefficient of variation, without unit; "
              "instability's is the spread of the validation loss's jumps in decades, powers of ten); threshold, "
              "what it is compared with, in the same unit; flag, FLAG where the value crosses it; caught / false "
              "alarms, percentages of the failed and of the fine networks it flags.",
              "", f"Any flag (combined), held out: {diagnostic_roc.rate_pair(h)}."]
    ev = fit.evaluation
    n_fail = ev.n_failed_u_p
    lines += ["", f"Diagnostics: {'none fired' if rep.ok else 'check ' + ', '.join(rep.flags)}.",
              f"Forward solves u_p: {len(ev.up_status) - n_fail} of {len(ev.up_status)} ok"
              + ("" if not n_fail else "; failed: " + "; ".join(
                  f"network {r}: {s}" for r, s in enumerate(ev.up_status) if s != "ok")) + ".",
              f"Training: {fit.result.n_replicates - len(failed_networks(fit))} of {fit.result.n_replicates} "
              "networks trained without diverging or blowing up.", "",
              "A flag is a reason to look, not a verdict, and no flag is not proof of correct operators: on the "
              "paper's own sweeps, where the truth is known, these checks miss some failures and fire on some "
              "settings that are fine (counts in the book's chapter on diagnosing failure without ground truth).",
              "", identifiability_markdown(fit, units)]
    return tag_failed("\n".join(lines) + "\n", training_failure(fit))


def fit_figures(fit: UserFit, units: dict, truth: dict | None = None) -> dict:
    """The figures of ``binn fit``'s report, {file name: figure}, axes labelled in
    ``units``; ``truth`` (a problem with a known answer: "u", the noise-free solution on
    the data grid, and a function of u per operator) is drawn as dashed black lines."""
    truth = truth or {}
    grid = _operator_grid(fit)
    xl, tl, ul = (f"{k}" + (f" ({units[k]})" if units.get(k) else "") for k in ("x", "t", "u"))
    plotting.style()
    return {"solutions.png": figures.own_data_solutions(fit.x, fit.t, fit.data.u, fit.u_theta, fit.u_p,
                                                        x_label=xl, u_label=ul, t_label="t",
                                                        u_true=truth.get("u")),
            "operators.png": figures.own_data_operators(
                grid, {k: fit.scaling.operator_factor(k) * v for k, v in
                       fit.result.operator_curves(fit.scaling.u_to_train(grid), fit.which).items()},
                fit.u_range, u_label=ul,
                labels={k: f"{plotting.OP_LABELS[k]}" + (f" ({units[k]})" if units.get(k) else "") for k in "DVG"},
                truth={k: f(grid) for k, f in truth.items() if k != "u"}),
            "losses.png": figures.own_data_losses(fit.result.history, fit.result.best_epoch
                                                  if fit.which == "best" else None)}


def write_fit_outputs(fit: UserFit, plan: FitPlan, seconds: float | None = None) -> dict:
    """Every output file of ``binn fit`` (module docstring) into ``plan.out``, all or nothing:
    they are written into a temporary folder beside it, which then replaces ``plan.out`` (an
    interrupted write leaves the previous fit whole, or no fit, never a mixture).  The networks
    stored in ``plan.out/networks`` (this fit's and any others) are kept."""
    final = plan.out
    final.parent.mkdir(parents=True, exist_ok=True)
    remove_stale_temporaries(final)
    tmp = Path(tempfile.mkdtemp(dir=final.parent, prefix=f".{final.name}.tmp-"))
    try:
        os.chmod(tmp, 0o777 & ~records.umask())
        if (final / "networks").is_dir():
            _link_tree(final / "networks", tmp / "networks")
        files = _write_fit_files(fit, plan, tmp, seconds)
        _replace_folder(tmp, final)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return {name: final / Path(path).name for name, path in files.items()}


#: a temporary output folder of binn fit older than this (seconds) was left by a process that was
#: killed while it wrote (a write takes seconds): removed by the next fit into the same folder
STALE_TEMPORARY_S = 3600.0


def remove_stale_temporaries(final: Path) -> list[Path]:
    """Remove the temporary folders ``.NAME.tmp-*`` beside ``final`` that a killed ``binn fit``
    left (older than :data:`STALE_TEMPORARY_S`; a younger one may belong to a fit writing now);
    the ones removed."""
    gone = []
    for tmp in final.parent.glob(f".{final.name}.tmp-*"):
        try:
            if tmp.is_dir() and not tmp.is_symlink() and time.time() - tmp.stat().st_mtime > STALE_TEMPORARY_S:
                shutil.rmtree(tmp)
                gone.append(tmp)
        except OSError:
            pass                # not ours to fight over: left as it is
    return gone


def _link_tree(src: Path, dst: Path):
    """``dst`` with the files of ``src`` (hard links where possible, else copies)."""
    dst.mkdir(parents=True, exist_ok=True)
    for f in src.iterdir():
        if f.is_file() and not f.name.startswith("."):
            try:
                os.link(f, dst / f.name)
            except OSError:
                shutil.copy2(f, dst / f.name)


def _replace_folder(new: Path, final: Path):
    """Put the folder ``new`` in the place of ``final`` (renames; the old one is removed after)."""
    old = None
    if final.exists():
        old = Path(tempfile.mkdtemp(dir=final.parent, prefix=f".{final.name}.old-"))
        os.rmdir(old)
        os.replace(final, old)
    os.replace(new, final)
    if old is not None:
        shutil.rmtree(old, ignore_errors=True)


def _write_fit_files(fit: UserFit, plan: FitPlan, out: Path, seconds) -> dict:
    files = {}
    # the networks, inside the output folder (binn predict reads them from there)
    net_dir = out / "networks"
    nets = []
    for f in fit.cache_files:
        dst = net_dir / Path(f).name
        if not dst.exists():
            net_dir.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(f, dst)
        nets.append(dst.relative_to(out).as_posix())
    grid = _operator_grid(fit)
    rows = operator_table(fit.result, fit.scaling, fit.which, grid, fit.u_range)
    files["operators.csv"] = write_operator_table(rows, out / "operators.csv")
    ev = fit.evaluation
    np.savez_compressed(out / "solutions.npz", x=fit.x, t=fit.t, u_data=fit.data.u, u_data_mean=fit.data.u_mean,
                        u_theta=fit.u_theta, u_p=fit.u_p, up_status=np.array(ev.up_status, dtype=str),
                        err_u_theta_obs=ev.err_u_theta_obs, err_u_p_obs=ev.err_u_p_obs)
    files["solutions.npz"] = out / "solutions.npz"
    un = plan.units
    for name, fig in fit_figures(fit, un).items():
        fig.savefig(out / name, dpi=110, bbox_inches="tight")
        plt.close(fig)
        files[name] = out / name
    md = diagnostics_markdown(fit, un)
    (out / "diagnostics.md").write_text(md, encoding="utf-8")
    files["diagnostics.md"] = out / "diagnostics.md"
    record = {"format": 1, "command": "binn fit", "spec": _load_spec(fit), "options": plan.options,
              "cache_key": fit.cache_key, "networks": nets, "which": fit.which, "mechanisms": list(fit.mechanisms),
              "forward_method": fit.forward_method, "scaling": fit.scaling.to_dict(),
              "data": {"file": plan.data_file, "file_sha1": plan.data_file_sha1, "source": fit.data.source,
                       "digest_sha1": _load_spec(fit).get("data_sha1"), "positions": int(fit.x.size),
                       "times": [float(v) for v in fit.t], "replicates": list(fit.data.replicates),
                       "columns": plan.options.get("columns"), "units": un},
              "u_range": [float(v) for v in fit.u_range],
              "results": {"flags": fit.report.flags, "up_status": list(ev.up_status),
                          "n_failed_u_p": ev.n_failed_u_p, "training_status": list(fit.result.status),
                          "err_u_theta_obs": [float(v) for v in ev.err_u_theta_obs],
                          "err_u_p_obs": [float(v) for v in ev.err_u_p_obs],
                          "networks_trained_by_this_run": int(fit.trained),
                          "train_wall_time_s": float(fit.result.wall_time_s)},
              "provenance": provenance.provenance(), "seconds": seconds,
              "files": sorted(OUTPUT_FILES)}
    record = records.clean_json(record)   # with its own checksum: binn predict trusts no edited fit.json
    record[records.RECORD_CHECKSUM_FIELD] = records.record_sha256(record)
    (out / "fit.json").write_text(json.dumps(record, indent=1, sort_keys=True), encoding="utf-8")
    files["fit.json"] = out / "fit.json"
    (out / "report.html").write_text(report_html(fit, plan, rows, md, record, out), encoding="utf-8")
    files["report.html"] = out / "report.html"
    return files


def _load_spec(fit: UserFit) -> dict:
    rec, _ = records.read_pair(*fit.cache_files, load_arrays=False, kind=fits.FIT_KIND)
    return rec.get("spec", {})


def _img(path: Path, alt: str) -> str:
    data = base64.b64encode(Path(path).read_bytes()).decode("ascii")
    return f'<figure><img alt="{html.escape(alt)}" src="data:image/png;base64,{data}"><figcaption>' \
           f'{html.escape(alt)}</figcaption></figure>'


def _md_table_to_html(lines: list[str]) -> str:
    rows = [ln.strip().strip("|").split(" | ") for ln in lines if ln.startswith("|") and not ln.startswith("|---")]
    if not rows:
        return ""
    head, body = rows[0], rows[1:]

    def cell(c, tag):
        c = html.escape(c.strip())
        if c.startswith("**") and c.endswith("**"):
            c = f"<strong>{c[2:-2]}</strong>"
        return f"<{tag}>{c}</{tag}>"
    return ("<table><thead><tr>" + "".join(cell(c, "th") for c in head) + "</tr></thead><tbody>"
            + "".join("<tr>" + "".join(cell(c, "td") for c in r) + "</tr>" for r in body) + "</tbody></table>")


def report_sections(md: str) -> tuple[list[str], list[str]]:
    """The lines of ``diagnostics.md`` split into the diagnostics (their table and verdict
    lines) and the identifiability section (from its heading), each shown as its own."""
    lines = md.splitlines()
    cut = next((i for i, ln in enumerate(lines) if ln.startswith(identifiability_words.FIT_HEADING)), len(lines))
    return lines[:cut], lines[cut:]


def _md_section_html(lines: list[str]) -> str:
    """A section of the report's Markdown as HTML: its '## ' heading, its paragraphs, its table."""
    out, para, table = [], [], []

    def flush():
        if para:
            out.append("<p>" + "<br>".join(html.escape(p) for p in para) + "</p>")
            para.clear()
        if table:
            out.append(_md_table_to_html(table))
            table.clear()
    for ln in lines:
        if ln.startswith("## "):
            flush()
            out.append(f"<h2>{html.escape(ln[3:].strip())}</h2>")
        elif ln.startswith("|"):
            if para:
                flush()
            table.append(ln)
        elif not ln.strip():
            flush()
        else:
            if table:
                flush()
            para.append(ln)
    flush()
    return "\n".join(out)


def report_html(fit: UserFit, plan: FitPlan, rows: list[dict], md: str, record: dict, out=None) -> str:
    """One self-contained HTML page (figures embedded as data URIs, no external files) of the
    outputs in ``out`` (default ``plan.out``)."""
    out = Path(out or plan.out)
    esc = html.escape
    ev = fit.evaluation
    med = (lambda v: _num(float(np.nanmedian(v))) if np.isfinite(v).any() else "n/a (every solve failed)")
    summary = fit.summary().splitlines()[:3]
    obs_rows = [r for r in rows if r["observed"]]
    pick = obs_rows[:: max(1, len(obs_rows) // 10)] if obs_rows else []
    op_cols = [k for k in rows[0] if k.endswith(("_median", "_q25", "_q75"))]
    op_table = ("<table><thead><tr><th>u</th>" + "".join(f"<th>{esc(c)}</th>" for c in op_cols)
                + "</tr></thead><tbody>" + "".join(
                    "<tr><td>" + _num(r["u"]) + "</td>"
                    + "".join(f"<td>{_num(r[c])}</td>" for c in op_cols)
                    + "</tr>" for r in pick) + "</tbody></table>")
    md_lines, ident_lines = report_sections(md)
    verdict = [ln for ln in md_lines if ln.removeprefix(FAILED_TAG).startswith(("Diagnostics:", "Forward", "Training",
                                                                                 "A flag"))]
    failure = training_failure(fit)
    prov = record["provenance"]
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>BINN fit: {esc(fit.data.source)}</title>
<style>
body {{ font-family: system-ui, sans-serif; max-width: 70em; margin: 2em auto; padding: 0 1em; color: #222; }}
table {{ border-collapse: collapse; margin: 1em 0; font-size: 0.9em; }}
th, td {{ border: 1px solid #ccc; padding: 0.25em 0.5em; text-align: left; vertical-align: top; }}
img {{ max-width: 100%; }} figure {{ margin: 1em 0; }} figcaption {{ color: #555; font-size: 0.9em; }}
code {{ background: #f4f4f4; padding: 0 0.2em; }}
</style></head><body>
<h1>BINN fit of {esc(fit.data.source)}</h1>
{f'<p><strong>{esc(FAILED_TAG + failure)}</strong></p>' if failure else ''}
<p>{'<br>'.join(esc(s) for s in summary)}</p>
<p>Median relative L2 error against the data: u<sub>&theta;</sub> {med(ev.err_u_theta_obs)},
u<sub>p</sub> {med(ev.err_u_p_obs)}; forward solves ({esc(fit.forward_method)}): {len(ev.up_status) - ev.n_failed_u_p}
of {len(ev.up_status)} ok.</p>
<h2>Diagnostics</h2>
{_md_table_to_html(md_lines)}
<p>{'<br>'.join(esc(v) for v in verdict)}</p>
{_md_section_html(ident_lines)}
<h2>Solutions</h2>
{_img(out / 'solutions.png', 'Data (grey), learned solution u_theta (blue) and forward-predicted solution u_p '
      '(orange, dashed; learned operators and initial condition only): mean and 1 sd over networks.')}
<h2>Learned operators</h2>
{_img(out / 'operators.png', 'Learned operators in the data units: thin lines, each network; band, mean and '
      '1 sd. Grey: u outside the observed range, where nothing constrains the operators.')}
{op_table}
<p>Full table (including the unobserved range, flagged <code>observed = 0</code>): <code>operators.csv</code>.</p>
<h2>Training</h2>
{_img(out / 'losses.png', 'Validation and training losses (median and interquartile range over networks).')}
<h2>Provenance</h2>
<p>Networks: <code>{esc(', '.join(record['networks']))}</code> (key {esc(str(fit.cache_key))});
data SHA-1 {esc(str(record['data']['digest_sha1']))}; commit {esc(str(prov.get('commit')))};
torch {esc(str(prov.get('torch')))}, numpy {esc(str(prov.get('numpy')))}, scipy {esc(str(prov.get('scipy')))}.
Full specification: <code>fit.json</code>.</p>
</body></html>
"""
