"""What a page shows beside a number (ui/components.py), without a page: the paper's claim
for the condition shown (``labcore.paper.claim_for``, which the components read), the note on what a
condition fixes by construction, and a change in the metric's own unit."""

from __future__ import annotations

from labcore.config import AGENT_KINDS
from labcore.paper_claims import claim_for, e1_condition, e2_condition
from ui import components
from ui.components import change_text
from ui.science import e1_construction_notes


def test_claim_for_gives_the_claim_of_the_condition_shown_or_none():
    assert claim_for("e1.auroc", e1_condition("zero", 4, 4)) == "e1.auroc.self_off"
    assert claim_for("e1.auroc", e1_condition("on", 0, 4)) == "e1.auroc.bus_off"
    assert (
        claim_for("e1.accuracy", e1_condition("on", 0, 4)) is None
    )  # the paper gives no bus-off accuracy
    assert claim_for("e1.auroc", e1_condition("on", 2, 4)) is None  # not a condition of the paper
    assert claim_for("e2.conjunction", e2_condition(2, 4)) == "e2.conjunction.k2"
    assert claim_for("e2.conjunction", e2_condition(3, 4)) is None


def test_the_by_construction_note_is_given_only_where_the_wiring_makes_it_true():
    def kinds(kind: str, mode: str, capacity: int) -> list[tuple[str, str]]:
        return [(n.kind, n.field) for n in e1_construction_notes(AGENT_KINDS[kind], mode, capacity)]

    assert kinds("b2_ws", "zero", 4) == [("zeroed", "")]  # its AUROC fixed at 0.5
    assert kinds("b1", "zero", 4) == [("absent", "")]  # nothing to zero: nothing fixed
    assert kinds("b2", "zero", 4) == [("zeroed", "policy")]  # its policy reads z_self too
    assert kinds("b2_ws", "on", 4) == []
    assert kinds("b2_ws", "on", 0) == [("workspace_off", "")]
    assert (
        e1_construction_notes(AGENT_KINDS["hot_only"], "on", 0) == []
    )  # cues visible: nothing fixed


def test_change_is_in_the_metrics_unit():
    assert change_text(0.483, 0.87, "{:.1%}").split()[:2] == ["-38.7", "pts"]  # points of a %
    assert change_text(0.5, 0.846).split()[0] == "-0.35"  # the difference, signed
    assert change_text(None, 0.5) is None


def _title_box_px(fig, annotation) -> tuple[float, float]:
    """A panel title's bottom and top, in px above the plot area's bottom (it is anchored at its
    bottom and grows upwards by a line per ``<br>``)."""
    plot_px = fig.layout.height - fig.layout.margin.t - fig.layout.margin.b
    bottom = float(annotation.y) * plot_px
    return bottom, bottom + 19 * (annotation.text.count("<br>") + 1)  # 19 px a line (14 px type)


def test_a_wrapped_title_of_a_lower_row_stays_clear_of_the_panels_above():
    """The Mystery page's slots figure wraps its lower panel's title to two lines for a phone; the
    second line must not grow up onto the panel above."""
    import numpy as np

    from labcore.figures import episode

    slots, occupied = np.zeros((6, 2, 3)), np.zeros((6, 2), bool)
    slots[1:, 0], occupied[1:, 0] = 1.0, True
    fig = episode.workspace_heatmap(slots, occupied, [None, "colour cue", None, None, None, None])
    shown = components.prepare(fig, download=False).shown
    lower = next(a for a in shown.layout.annotations if a.text.startswith("slot activations"))
    assert "<br>" in lower.text  # wrapped for a phone
    _, top = _title_box_px(shown, lower)
    plot_px = shown.layout.height - shown.layout.margin.t - shown.layout.margin.b
    assert top <= shown.layout.yaxis.domain[0] * plot_px + 1, "the title reaches the panel above"
    assert lower.y == shown.layout.yaxis2.domain[1]  # still on its own panel
    assert fig.layout.yaxis2.domain[1] > shown.layout.yaxis2.domain[1], "moved on the copy only"
    original = fig.layout.annotations[list(shown.layout.annotations).index(lower)]
    assert "<br>" not in original.text  # the figure itself is not wrapped
