"""The scorecard: the claims that span studies (11: the Supporting Material repeats, 12: the
ground-truth-free diagnostics) on small synthetic result sets read through a fake context,
judging a claim, and the scorecard's words (binn_utils.presentation.scorecard_text)."""
import dataclasses
import re
from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest

from binn_utils import studies
from binn_utils.analysis import diagnostic_roc, diagnostics
from binn_utils.analysis.verdicts import Claim, ClaimCheck, Outcome, SubClaim, Verdict
from binn_utils.claims import scorecard, spanning
from binn_utils.claims.context import Context, RunRow
from binn_utils.presentation import landing_text, scorecard_text as text

A, D, N, F = Verdict.AGREES, Verdict.DISAGREES, Verdict.NOT_TESTED, Verdict.INDISTINCT


class Result:
    """A stored setting as the spanning claims see it: its meta, per-replicate u_p errors, seeds."""

    def __init__(self, setting, err=0.1, seeds=10):
        self.setting = dataclasses.replace(setting, seeds=tuple(range(seeds)), datasets=(0,) * seeds)
        self.meta = dict(setting.meta)
        self.err = np.full(seeds, err) + np.linspace(0, err / 10, seeds)
        # learned operators 1 +- err (alternating): each network lies about err from the median curve
        u = np.linspace(0, 1, 11)
        side = np.where(np.arange(seeds) % 2, 1.0, -1.0) * (1 + np.linspace(0, 0.1, seeds))
        self.record = SimpleNamespace(u_range=(0.2, 0.8), mechanisms=("D",))
        self.arrays = {"u_grid": u, "op_D": 1 + err * side[:, None] + 0 * u}

    def metric(self, name, which=None):
        return self.err

    def net(self, name, which=None):
        return self.arrays[name]

    def __getitem__(self, k):
        return self.arrays[k]


class FakeContext(Context):
    """Results from a dict instead of the store: (study, noise variance, dense) -> u_p error of
    every setting of a Supporting Material repeat; ``stored(setting)`` for single settings."""

    def __init__(self, repeats=None, stored=lambda s: False, seeds=10):
        super().__init__(scale="lite", train=False)
        self.repeats, self.stored, self.seeds = repeats or {}, stored, seeds

    def repeat(self, name, noise_var, dense, at=None):
        if (name, noise_var, dense) not in self.repeats or at not in (None, "lite"):
            return None
        err = self.repeats[(name, noise_var, dense)]
        parts = tuple([Result(s, err, self.seeds) for s in part]
                      for part in self.repeat_settings(name, noise_var, dense, "lite"))
        return (parts if len(parts) > 1 else parts[0]), "lite"

    def load(self, settings, scale, desc, chapter_default=True):
        if not all(self.stored(s) for s in settings):
            raise RuntimeError(f"{desc} not stored")
        return [Result(s) for s in settings]

    def run(self, res, name, **kw):
        return f"{name} runs"


@pytest.fixture
def summaries(monkeypatch):
    """Every repeated study's summary gives the verdict ``summaries.verdict`` to each comparison."""
    state = SimpleNamespace(verdict=A)
    for st in studies.repeated(dense=False) + studies.repeated(dense=True):
        fake = lambda res, st=st: SimpleNamespace(verdicts={k: state.verdict for k, _ in st.repeat_checks},
                                                             intervals={})  # noqa: E731
        monkeypatch.setitem(studies.REGISTRY, st.name, dataclasses.replace(st, summary=fake))
    return state


def every_repeat(sparse_err, dense_err):
    out = {}
    for nv, dense in studies.SUPPORTING_CONFIGURATIONS + ((1e-3, False),):
        for st in studies.repeated(dense):
            out[(st.name, None if st.sweeps_noise else nv, dense)] = dense_err if dense else sparse_err
    out[("noise", 1e-3, False)] = sparse_err  # the dense noise study's sparse reference
    return out


def test_claim_11_agrees_when_every_repeat_agrees_and_dense_data_lower_the_errors(summaries):
    check = spanning.claim_supporting(FakeContext(every_repeat(sparse_err=0.2, dense_err=0.1)))
    # the errors' medians separate, and the dense grid's operators lie half as far from their
    # median curve: every comparison agrees
    assert {s.verdict for s in check.subclaims if "lower median" in s.label} == {A}
    assert {s.verdict for s in check.subclaims if "less variable" in s.label} == {A}
    assert {s.verdict for s in check.subclaims} == {A}
    assert check.outcome is Outcome.HOLDS and not check.missing
    groups = {s.group for s in check.subclaims}
    assert "$\\sigma^2$ = 1e-2, 351 points against 71 points" in groups and "noise study, 351 points" in groups
    # every repeated study's comparisons, in every configuration
    lr = [s for s in check.subclaims if s.label.startswith("learning rate: ")]
    assert len(lr) == 5 * len(studies.get("learning_rate").repeat_checks) + 3 * 3
    assert "lower median $u_\\mathrm{p}$ error at the default" in check.subclaims[-2].label


def test_claim_11_disagrees_when_the_repeats_disagree_and_dense_data_do_not_help(summaries):
    summaries.verdict = D
    check = spanning.claim_supporting(FakeContext(every_repeat(sparse_err=0.1, dense_err=0.2)))
    assert check.outcome is Outcome.FAILS
    # the medians separate the other way, and the dense grid's operators vary twice as much
    assert {s.verdict for s in check.subclaims if "lower median" in s.label} == {D}
    assert {s.verdict for s in check.subclaims} == {D}


def test_claim_11_is_not_tested_without_stored_repeats_and_with_too_few_replicates(summaries):
    check = spanning.claim_supporting(FakeContext())
    assert check.outcome is Outcome.NOT_TESTED and check.missing
    assert "(planned)" in check.runs and "No dense repeat is stored" in check.evidence
    # with three replicates the intervals are unbounded: dense against sparse cannot be distinguished,
    # while each repeat's comparisons are its page's verdicts (the study's summary)
    few = spanning.claim_supporting(FakeContext(every_repeat(0.2, 0.1), seeds=3))
    dense = [s for s in few.subclaims if "against 71 points" in (s.group or "")]
    assert dense and {s.verdict for s in dense} == {F}
    assert {s.verdict for s in few.subclaims if s not in dense} == {A}


def signs_at(high):
    """A fake ``warning_signs``: on each setting, per replicate, the sign ``high(setting)``
    names ("mismatch", ... or None) is 2 + a spread, the others 1 + a spread (ten replicates:
    separated medians' intervals), so that sign alone is raised against any other setting."""
    def signs(res, which=None):
        up = high(res.setting)
        return {k: (2.0 if k == up else 1.0) + np.linspace(0, 0.05, 10) for k in diagnostics.WARNING_SIGNS}
    return signs


def failure(setting):
    st = studies.get(setting.study)
    return any(dict(setting.meta) == pytest.approx(dict(p.point)) for p in st.paper_failures)


EVERY_NETWORK = (SubClaim("over every stored network, the paper's three signs rank failed networks above fine ones", N), "", "")


@pytest.fixture
def no_network_table(monkeypatch):
    """Claim 12's sub-claim over every stored network, out of the way of the synthetic settings."""
    monkeypatch.setattr(spanning, "every_network", lambda: EVERY_NETWORK)


def test_claim_12_over_every_stored_network_is_the_paper_s_three_signs_with_held_out_rates():
    sub, words, caveat = spanning.every_network()
    s = diagnostic_roc.stored_summary()
    paper = s["per"][diagnostic_roc.PAPER]
    a, lo, hi = paper["auc"]
    held = paper["held"].pooled
    assert sub.numbers == {"AUC of the paper's three signs": f"{a:.2f} [{lo:.2f}, {hi:.2f}]",   # rounded, as shown
                           "held out: failures caught": diagnostic_roc.pct(held.caught_rate),
                           "held out: false alarms": diagnostic_roc.pct(held.false_alarm_rate)}
    assert sub.verdict is (A if lo > 0.5 else D if hi < 0.5 else Verdict.INDISTINCT)
    assert f"{diagnostic_roc.pct(held.false_alarm_rate)} of the fine networks ({held.false_alarms} of {held.fine})" in words
    assert f"({held.caught} of {held.failures} over all benchmarks)" in words   # pooled over the benchmarks held out
    assert f"{s['n']} stored networks" in words
    assert caveat.endswith(f"catch {diagnostic_roc.pct(held.caught_rate)} of failures, with "
                           f"{diagnostic_roc.pct(held.false_alarm_rate)} of fine networks flagged (AUC {a:.2f})")
    # one set of flags: the paper's score is the largest of exactly the diagnostics that flag its three signs
    t = diagnostic_roc.labelled_table()
    np.testing.assert_array_equal(t.score(diagnostic_roc.PAPER),
                                  np.max([t.score(n) for n in diagnostics.PAPER_SIGNS], axis=0))
    assert set(diagnostics.PAPER_SIGNS.values()) == set(diagnostics.WARNING_SIGNS)


def test_claim_12_reads_the_studies_marked_diagnosed():
    assert [st.name for st in spanning.diagnosed()] == ["learning_rate", "loss_weight"]


@pytest.mark.parametrize("high, expected", [
    (lambda s: "validation rise" if failure(s) else None, Outcome.HOLDS),                 # one sign raised is enough
    (lambda s: "operator deviation" if failure(s) else None, Outcome.HOLDS),              # (the network table not tested)
    (lambda s: None if failure(s) else "mismatch", Outcome.UNRESOLVED),             # the default higher on one sign only
    (lambda s: None, Outcome.UNRESOLVED),                                           # no sign separates
    (lambda s: "mismatch" if (failure(s) and s.study == "learning_rate") else None, Outcome.UNRESOLVED)])
def test_claim_12_compares_the_papers_warning_signs_with_the_default(monkeypatch, no_network_table, high, expected):
    monkeypatch.setattr(spanning.diagnostics, "warning_signs", signs_at(high))
    check = spanning.claim_diagnostics(FakeContext(stored=lambda s: True))
    assert check.outcome is expected and not check.missing
    assert check.chapters == ("learning_rate", "loss_weighting")
    labels = [s.label for s in check.subclaims]
    assert labels[0] == "$r$ = 5e-7: a warning sign raised against the default $r$ = 5e-4"
    assert labels[-1] == EVERY_NETWORK[0].label
    assert len(labels) == sum(len(st.paper_failures) for st in spanning.diagnosed()) + 1
    first = check.subclaims[0]
    assert set(first.numbers) == {f"{k}, {n}" for k in spanning.diagnostics.WARNING_SIGNS
                                  for n in ("$r$ = 5e-7", "default")}
    assert "one sign's median higher than the default's, the three differences corrected together by Holm's " \
           "procedure, agrees" in first.rule


def test_claim_12_disagrees_where_every_sign_is_lower_than_at_the_default(monkeypatch, no_network_table):
    def signs(res, which=None):
        base = 1.0 if failure(res.setting) else 2.0
        return {k: base + np.linspace(0, 0.05, 10) for k in diagnostics.WARNING_SIGNS}
    monkeypatch.setattr(spanning.diagnostics, "warning_signs", signs)
    check = spanning.claim_diagnostics(FakeContext(stored=lambda s: True))
    assert {s.verdict for s in check.subclaims[:-1]} == {D} and check.outcome is Outcome.FAILS


def test_claim_12_a_failed_replicate_counts_as_the_highest_sign(monkeypatch, no_network_table):
    def signs(res, which=None):
        bad = failure(res.setting)
        return {k: np.r_[np.full(6, np.inf), np.full(4, 3.0)] if bad and k == "mismatch" else 1.0 + np.linspace(0, 0.05, 10)
                for k in diagnostics.WARNING_SIGNS}
    monkeypatch.setattr(spanning.diagnostics, "warning_signs", signs)
    check = spanning.claim_diagnostics(FakeContext(stored=lambda s: True))
    assert {s.verdict for s in check.subclaims[:-1]} == {A}
    assert check.subclaims[0].numbers["mismatch, $r$ = 5e-7"].startswith("inf [")


def test_claim_12_not_tested_where_not_stored(monkeypatch, no_network_table):
    monkeypatch.setattr(spanning.diagnostics, "warning_signs", signs_at(lambda s: "mismatch" if failure(s) else None))
    none = spanning.claim_diagnostics(FakeContext())
    assert none.outcome is Outcome.NOT_TESTED and none.missing and "(planned)" in none.runs
    lr_only = spanning.claim_diagnostics(FakeContext(stored=lambda s: s.study == "learning_rate"))
    assert lr_only.outcome is Outcome.HOLDS and lr_only.missing          # what is not stored never decides
    assert [s.verdict for s in lr_only.subclaims] == [A, A, A, N, N, N]


# ----------------------------------------------------------------------------- judging and words
def claim(number, check, title="u_theta matches", chapter="framework", primary=()):
    return Claim(number, "text", "evidence", check, title=title, figure=f"Fig. {number}", chapter=chapter,
                 primary=primary)


def checked(number, *verdicts, group=None, primary=()):
    """A judged claim of sub-claims ``verdicts`` (labels "sub-claim 0", ...); ``primary``: the
    indices of its primary statement (empty: every sub-claim)."""
    subs = tuple(SubClaim(f"sub-claim {k}", v, group, rule="criterion at most 0.1") for k, v in enumerate(verdicts))
    return scorecard.judge(claim(number, lambda ctx: ClaimCheck("runs", f"Numbers {number}", subs, ("ch",)),
                                 primary=tuple(f"sub-claim {k}" for k in primary)), None)


def test_judge_a_claim_whose_results_are_not_stored():
    def missing(ctx):
        raise RuntimeError("3 of 7 settings are not in the results store")
    j = scorecard.judge(claim(1, missing), None)
    assert j.outcome is Outcome.NOT_TESTED and j.unstored and j.subclaims == ()
    assert text.verdict_words(j) == "not tested (results not stored yet)"
    assert text.evidence(j) == "Results not stored yet: 3 of 7 settings are not in the results store."
    assert text.verdict_words(checked(2, N)) == "not tested"        # nothing missing: just not tested


def test_labels_rules_and_what_failed():
    ruled = SubClaim("(4, 4) recovers D", D, rule="median rel. error at most 0.1")
    assert text.labelled(ruled) == "(4, 4) recovers D (median rel. error at most 0.1)"
    assert text.labelled(SubClaim("(4, 32) no better than (4, 4)", A)) == "(4, 32) no better than (4, 4)"
    assert text.what_failed([ruled]) == "“(4, 4) recovers D”"                 # the claim, not its rule
    subs = checked(1, A, D, D, D, D, D, group="71 points").subclaims
    assert text.what_failed(subs[:3]) == "71 points: “sub-claim 1”; 71 points: “sub-claim 2”"
    assert text.what_failed(subs, most=2).endswith("; and 3 more")
    assert text.what_failed(checked(1, A, N).subclaims) == ""


def test_headline_box_counts_and_lists_the_failing_claims():
    judged = [checked(1, A), checked(2, A, D, primary=(0,)), checked(3, D), checked(4, N), checked(5, A, A)]
    assert text.counts(judged) == {Outcome.HOLDS: 2, Outcome.HOLDS_EXCEPT: 1, Outcome.FAILS: 1,
                                   Outcome.UNRESOLVED: 0, Outcome.NOT_TESTED: 1}
    md = text.headline_md(judged)
    # the scorecard page says its summary once: the answer counts the verdicts (the claims table
    # below it gives each claim's); no second box repeats the counts
    assert len(re.findall(r"Of the paper's 5 claims", md)) == 1 and "Our tests of the paper's claims" not in md
    assert "2 hold; 1 holds, with exceptions; 1 does not hold; and 1 is not tested" in md
    # the landing page says it once and briefly, in other words, and sends the reader to the scorecard
    html = landing_text.landing_html(judged)
    assert "Of the paper's 5 claims" not in html and len(re.findall(r"<li>", html)) == 4   # one item per outcome held
    assert html.index("<strong>2</strong> hold:") < html.index("claim 2,") < html.index("claim 3,")
    assert '<a href="../notebooks/framework.html">Fig. 3</a>' in html and "sub-claim 1" not in html
    assert 'href="../notebooks/scorecard.html"' in html and "not resolved" not in html   # no outcome nobody has


def test_the_landing_page_counts_the_recommendations_in_its_own_sentence():
    from binn_utils.claims import recommendations as R
    rows = [R.Row(R.RECOMMENDATIONS[k], R.Answer(w), R.Answer(R.NOT_TESTED), R.Answer(R.NOT_TESTED))
            for k, w in ((4, R.HOLDS), (3, R.HOLDS), (5, R.UNRESOLVED))]
    brief = landing_text.recommendations_brief(rows)
    assert brief.startswith("Of the paper's 3 recommendations for training a BINN, ")
    assert "2 hold on our runs (" in brief and "1 is not resolved by these runs (intermediate batch sizes)" in brief
    assert brief not in text.headline_md([checked(1, A)], None, rows)       # the scorecard says it otherwise
    assert landing_text.recommendations_brief([]) == ""


def test_plain_answer_gives_the_counts_the_authors_runs_and_the_operators():
    from binn_utils.analysis.verdicts import Interval
    few = checked(10, A, D, D, D, D)                 # its primary statement disagrees
    most = checked(12, A, A, A, A, A, A, D, primary=(0, 1))          # primary agrees, another disagrees
    ours = dataclasses.replace(most.check.subclaims[0], authors=D)
    most = scorecard.Judged(most.claim, dataclasses.replace(
        most.check, subclaims=(ours,) + most.check.subclaims[1:], numbers={"$D$ here": Interval(0.3, 0.2, 0.4, 10, 0.98)}))
    answer = text.plain_answer([few, most])
    assert 5 <= len(answer) <= 9
    assert answer[0] == ("Of the paper's 2 claims, tested on their primary statements: 1 holds, with exceptions; "
                         "and 1 does not hold.")
    assert "Hold, with exceptions: $u_\\theta$ matches (claim 12)." in answer
    assert "Do not hold: $u_\\theta$ matches (claim 10)." in answer
    assert not any(s.startswith(("Hold:", "Not resolved")) for s in answer)   # no empty lists
    # the sub-claims contradicted, by name (five named: "and 1 more" would hide what a name says)
    said = next(s for s in answer if s.startswith("The sub-claims our runs contradict"))
    assert said.startswith("The sub-claims our runs contradict: “sub-claim 1” (claim 10); “sub-claim 2” (claim 10); "
                           "“sub-claim 3” (claim 10); “sub-claim 4” (claim 10); “") and said.count("(claim ") == 5
    assert "more" not in said
    # those of a claim that does not hold come first, whatever the order of the claims
    assert said in text.plain_answer([most, few])
    assert any(s.startswith("The authors' own archived runs") and "bear on claim 12:" in s
               and "0 agree with the paper, 1 disagree" in s for s in answer)
    full = text.plain_answer([checked(2, A, A), checked(4, D), checked(9, F)])
    assert "Hold: $u_\\theta$ matches (claim 2)." in full
    assert full[0].endswith(": 1 holds; 1 does not hold; and 1 is not resolved.")
    assert "Not resolved with these runs: $u_\\theta$ matches (claim 9)." in full
    assert any("[its 95 % interval] of $D$ here is 0.3 [0.2, 0.4]" in s for s in answer)
    assert text.plain_answer_md([few, most]) in text.headline_md([few, most])


def _ratio_row(data, figure, quantity, ratio, lo, hi, verdict, datasets=5):
    return {"data": data, "figure": figure, "quantity": quantity, "norm": "frobenius", "settings": 7,
            "datasets": datasets, "ratio": ratio, "lo": lo, "hi": hi, "lo90": lo * 1.05, "hi90": hi / 1.05,
            "p": 0.5, "rule_out": max(hi / 1.05, 1.05 / lo), "verdict": verdict}


def test_the_answer_says_whether_our_runs_are_the_authors_per_figure_with_its_ratio():
    from binn_utils.analysis import results_table as rt
    f = scorecard.Fidelity(pd.DataFrame([
        _ratio_row("ours", 3, "err_u_p", 0.98, 0.88, 1.09, rt.EQUIVALENT),
        _ratio_row("ours", 6, "err_u_p", 1.9, 1.3, 2.6, rt.DIFFERS),
        _ratio_row("authors", 4, "err_u_theta", 1.0, 0.63, 1.59, rt.UNRESOLVED, datasets=3)]), 1.25)
    s = text.fidelity_sentence(f)
    assert "on our data: equivalent within 1.25x, Fig. 3 $u_\\mathrm{p}$; different, Fig. 6 $u_\\mathrm{p}$" in s
    assert "on the authors' data: cannot be told within 1.25x, Fig. 4 $u_\\theta$" in s
    assert not re.search(r"\bnone of \d+|\d+ of \d+ comparisons", s)       # no count of rows that could not differ
    table = text.fidelity_table_md(f)
    assert "| Fig. 6 | $u_\\mathrm{p}$ | 1.9 [1.3, 2.6] | differs | n/a | not stored |" in table
    assert "cannot be told within 1.25x; only a difference beyond 1.67x is ruled out |" in table
    from binn_utils.presentation.authors_figures import RATIO_RULE
    assert table.endswith(RATIO_RULE) and "| figure | error | ours / authors [95 % interval], our data | decision" in table
    answer = text.plain_answer([checked(2, A, A)], f)
    assert s in answer and table in text.headline_md([checked(2, A, A)], f)
    assert not any("archived runs" in x for x in text.plain_answer([checked(2, A, A)]))


def test_fidelity_pools_every_archived_figure_with_the_dataset_as_the_unit():
    f = scorecard.fidelity(Context())
    archived = {studies.get(archive).paper_figure for archive, *_ in scorecard.ARCHIVE_COMPARED.values()}
    assert archived == {3, 4, 5, 6}
    ours = f.of("ours")
    assert set(ours["figure"]) == archived and (ours["datasets"] >= 5).all()
    assert ((ours["lo"] < ours["ratio"]) & (ours["ratio"] < ours["hi"])).all()
    assert set(ours["verdict"]) <= {"equivalent", "differs", "cannot be told"}
    assert scorecard.fidelity(Context(scale="quick")) is None


def test_an_untested_part_never_decides_and_its_counts_say_why():
    """A claim's outcome follows the tested parts of its primary statement; a sub-claim not
    tested is listed with its count and never decides."""
    U = Verdict.UNDECIDED
    answer = text.plain_answer([checked(8, A, A, N), checked(2, A, A), checked(5, A, U, N, N), checked(4, D, N)])
    held = next(s for s in answer if s.startswith("Hold:"))
    assert "(claim 8; 1 of its 3 sub-claims not tested)" in held and "(claim 2)" in held
    assert "(claim 4; 1 of its 2 sub-claims not tested)" in next(s for s in answer if s.startswith("Do not hold"))
    assert "claim 5" in next(s for s in answer if s.startswith("Not resolved"))
    assert text.verdict_words(checked(8, A, A, N)) == "holds (of 3 sub-claims: 2 agree; 1 not tested)"
    assert text.verdict_words(checked(2, A, A)) == "holds (of 2 sub-claims: 2 agree)"
    assert text.verdict_words(checked(3, A, D, primary=(0,))) == "holds, with exceptions (of 2 sub-claims: 1 agree, 1 disagree)"


def test_the_scorecard_prints_the_outcome_rule_of_the_code():
    """The page's rule is the rule's own words (verdicts.OUTCOME_RULE), glued, not retyped."""
    from pathlib import Path
    from binn_utils.analysis.verdicts import OUTCOME_RULE
    rule = text.outcome_rule_md()
    bullets = [line for line in rule.split("\n") if line.startswith("* ")]
    assert [b.split("**")[1] for b in bullets] == [o.value for o, _, _ in OUTCOME_RULE]
    assert all(words in rule for _, _, words in OUTCOME_RULE)
    assert "**holds, with exceptions** when every tested part of its primary statement agrees but another" in rule
    page = (Path(__file__).parents[1] / "notebooks" / "scorecard.py").read_text()
    assert 'reporting.glue("sc_outcome_rule", Markdown(text.outcome_rule_md()))' in page
    assert "# ```{glue:md} sc_outcome_rule" in page
    assert not any(f"* **{o.value}**" in page for o in Outcome)          # no second, typed copy


def test_claims_table_details_and_choices():
    judged = [checked(1, A), checked(2, A, D, group="g")]
    table = text.claims_table(judged).split("\n")
    assert len(table) == 4 and "✔ holds" in table[2] and "disagreeing" not in table[2]
    assert "; disagreeing: g: “sub-claim 1” |" in table[3]
    # no column stands empty: every row fills every cell
    for row in table[2:]:
        cells = row.strip("|").split(" | ")
        assert len(cells) == table[0].count(" | ") + 1 and all(c.strip() for c in cells), row
    details = text.details_md(judged)
    assert f"{text.OURS} Numbers 2. See {{doc}}`ch`." in details   # its sub-claims counted in the titles, not here
    assert "pooled over all of a setting's networks" in text.OURS and "the dataset the unit" in text.OURS   # which median
    # each claim under its own anchor (the table links it); a claim of several configurations as
    # a table of their tallies, each configuration's sub-claims folded; a plain claim's folded
    assert "(sc-claim-2)=\n**Claim 2**" in details and "[2](#sc-claim-2)" in table[3]
    assert "| g | 1 | 1 |  |  |  |" in details
    # the sub-claims' numbers in a table (a sentence of them would read as a list of numbers)
    head = "| sub-claim (our rule) | verdict | our numbers | the difference decided on |\n|---|---|---|---|\n"
    assert (":::{dropdown} g, 2 sub-claims: 1 agrees, 1 disagrees\n" + head
            + "| sub-claim 0 (criterion at most 0.1) | *agrees* | – | – |\n"
            "| sub-claim 1 (criterion at most 0.1) | *disagrees* | – | – |\n:::") in details
    assert (f":::{{dropdown}} Our numbers and its 1 sub-claim: agrees\n{text.OURS} Numbers 1. See "
            "{doc}`ch`.\n\n" + head + "| sub-claim 0 (criterion at most 0.1) | *agrees* | – | – |\n:::") in details
    assert f":::{{dropdown}} Our numbers\n{text.OURS} Numbers 2" in details
    from binn_utils.analysis.verdicts import Interval
    ivs = {"u_theta": Interval(0.08, 0.07, 0.09, 10, 0.98), "u_p": Interval(0.09, 0.08, 0.1, 10, 0.98)}
    sub = SubClaim("u_theta matches", F, numbers=ivs)
    details = text.details_md([scorecard.judge(claim(3, lambda ctx: ClaimCheck("runs", "n", (sub,), ("ch",))), None)])
    # (the package's names of quantities in the book's words: tables.in_words)
    assert ("| $u_\\theta$ matches | *cannot be distinguished* | medians over the networks with their 95 % intervals: "
            "$u_\\theta$ 0.08 [0.07, 0.09]; $u_\\mathrm{p}$ 0.09 [0.08, 0.1] | – |") in details
    # over several datasets the median is that of the datasets' medians, and says so
    from binn_utils.analysis.intervals import median_interval
    over = median_interval(np.arange(1.0, 13.0), datasets=np.repeat([0, 1, 2], 4), seeds=np.tile(range(4), 3),
                           source="s")
    assert over.datasets == 3 and over.estimate == 6.5
    assert text.intervals_words({"a": over}).startswith("medians of the datasets' medians with their 95 % intervals: a 6.5")
    assert text.intervals_words({"a": over, "b": ivs["u_p"]}).startswith("medians with their 95 % intervals: a 6.5")
    spread = {"(4, 4)": Interval(0.02, 0.01, 0.03, 10, 0.95, "IQR")}
    assert text.intervals_words(spread) == "interquartile ranges with their 95 % bootstrap intervals: (4, 4) 0.02 [0.01, 0.03]"
    mixed = {"AUC": "0.85 [0.80, 0.90]", "u_p": ivs["u_p"]}
    assert text.intervals_words(mixed) == "AUC 0.85 [0.80, 0.90]; u_p (median with its 95 % interval) 0.09 [0.08, 0.1]"
    assert text.intervals_words({"a": Interval(2.0, 1.0, 3.0, 5, 0.95, "a")}) == "a 2 [1, 3]"    # the rule names it
    # a name that says its statistic is not followed by it again (claim 9's medians and IQRs)
    named = {"median, (4, 32)": ivs["u_p"], "IQR, (4, 32)": spread["(4, 4)"]}
    assert text.intervals_words(named) == ("each with its 95 % interval: median, (4, 32) 0.09 [0.08, 0.1]; "
                                           "IQR, (4, 32) 0.02 [0.01, 0.03]")
    effects = [scorecard.ChoiceEffect("ours", "theirs", ((judged[0], checked(1, D)),)),
               scorecard.ChoiceEffect("mine", "other", ())]
    assert text.choices_table(effects).split("\n")[2:] == [
        "| ours | theirs | claim 1: holds → does not hold |", "| mine | other | none |"]


def test_provenance_cells():
    row = RunRow("Fig. 6", ("paper",), (1e-3,), False, epochs=(4000, 8000, 4000),
                 replicates=((1, 10), (1, 10), (3, 10)), devices=("cpu", "cuda: NVIDIA H100", "cpu"),
                 solvers=("RK45",) * 3)
    assert text.provenance_cells(row) == ["Fig. 6", "σ² = 0.001, 71 points", "paper", "3", "4,000-8,000",
                                          "3 × 10, 1 × 10", "CPU: 2, GPU (NVIDIA H100): 1", "RK45"]
    empty = RunRow("SM", ("paper", "lite"), (0.0, 0.05), True)
    assert text.provenance_cells(empty) == ["SM", "σ² = 0 to 0.05, 351 points", "paper/lite", "not stored yet",
                                            "", "", "", ""]


def test_a_chapter_box_gives_the_scorecards_verdict_only_for_the_committed_configuration(monkeypatch):
    """The box at the top of a chapter: the scorecard's verdict on each of its claims (what holds
    it back, a link to it), read only where the chapter's parameters are the committed main-text
    configuration; any other run of the chapter says the verdicts are not its own."""
    seen = []
    monkeypatch.setattr(scorecard, "judge_chapter", lambda ctx, ch: seen.append(ch) or [checked(6, A, D, primary=(0,))])
    base = dict(scale=None, noise_var=None, dense=False, epochs=None, seeds=None)
    assert scorecard.chapter_verdicts("learning_rate", {**base, "rates": None}) is not None
    assert seen == ["learning_rate"]
    for other in ({"scale": "quick"}, {"noise_var": 0.01}, {"dense": True}, {"seeds": 3}, {"rates": [1e-3]}):
        assert scorecard.chapter_verdicts("learning_rate", {**base, "rates": None, **other}) is None, other
    assert seen == ["learning_rate"]
    with pytest.raises(ValueError, match="no study has the chapter"):
        scorecard.chapter_verdicts("nowhere", base)
    box = text.chapter_brief_md([checked(6, A, D, primary=(0,))])
    assert box.startswith("```{admonition} In brief") and box.endswith("```")
    assert "Claim 6, $u_\\theta$ matches:" in box and "holds, with exceptions (of 2 sub-claims: 1 agree, 1 disagree)" in box
    assert "; disagreeing: “sub-claim 1”." in box and "held back" not in box and "{ref}`On the scorecard <sc-claim-6>`" in box
    # a claim not resolved: what holds it back, each with its verdict; one that holds: nothing
    assert "; held back by “sub-claim 1” (cannot be distinguished)." in text.chapter_brief_md([checked(6, A, F, primary=(1,))])
    assert "held back" not in text.chapter_brief_md([checked(6, A, A)])
    assert "not the committed main-text configuration" in text.chapter_brief_md(None)


def test_no_reader_facing_text_decides_by_separated_or_overlapping_intervals():
    """Every comparison is decided on the interval of the difference (analysis.contrasts); a
    chapter or a claim's rule that said "intervals separated" would describe another test."""
    import pathlib
    import re
    root = pathlib.Path(__file__).resolve().parents[1]
    files = sorted((root / "notebooks").glob("*.py"))
    for layer in ("studies", "claims", "presentation"):
        files += sorted((root / "binn_utils" / layer).rglob("*.py"))
    pattern = re.compile(r"intervals?\b[^.;:]{0,60}\b(separated|overlap|lies? above|lies? below)", re.I)
    found = [f"{f.relative_to(root)}: {m.group(0)}" for f in files
             for m in pattern.finditer(" ".join(f.read_text().split()))]
    assert not found, found


def test_a_claims_caveat_goes_with_its_outcome_on_the_landing_page_and_in_the_chapter_box():
    subs = (SubClaim("sub-claim", A, rule="r"),)
    j = scorecard.judge(claim(12, lambda ctx: ClaimCheck("runs", "Numbers", subs, ("ch",), caveat="held out, 32 % caught")), None)
    assert any(line.endswith(": held out, 32 % caught.") and "claim 12" in line for line in text.plain_answer([j]))
    partly = scorecard.judge(claim(12, lambda ctx: ClaimCheck("runs", "n", subs + (SubClaim("b", N, rule="r"),), ("ch",),
                                                              caveat="held out, 32 % caught")), None)
    assert any(line.endswith(": held out, 32 % caught.") for line in text.plain_answer([partly]))   # whatever the outcome
    assert "; held out, 32 % caught. " in text.chapter_brief_md([j])
    plain = checked(2, A)
    assert not any(line.startswith("On claim 2") for line in text.plain_answer([plain]))


def test_one_phrasing_per_outcome_the_sentence_about_the_paper_uses_the_verdicts_own_words():
    from binn_utils.analysis.verdicts import WITH_PAPER
    for v, words in WITH_PAPER.items():
        head = v.value.split(" with this many replicates")[0]
        assert words.startswith(head) or words.startswith(f"was {head}"), (v, words)
