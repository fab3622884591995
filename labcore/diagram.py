"""Architecture diagrams (Graphviz DOT) that show what an intervention removes.

>>> from labcore.config import AGENT_KINDS, Intervention
>>> dot = architecture_dot(AGENT_KINDS["b2_ws"], Intervention(self_model_mode="zero"))
>>> "z_self" in dot and "lesioned" in dot
True
"""

from __future__ import annotations

from labcore.agents.parts import self_model_width
from labcore.config import AgentConfig, Intervention

_ON = 'style="filled,rounded", fillcolor="#e8f1fb", color="#2b6cb0"'
_OFF = 'style="filled,rounded,dashed", fillcolor="#f1f1f1", color="#b0b0b0", fontcolor="#9a9a9a"'
_CUE = 'style="filled,rounded", fillcolor="#fff4d6", color="#c58b00"'
FONT_SIZE = 18
"""Points of the node labels (edge labels 3 smaller)."""


def architecture_dot(config: AgentConfig, intervention: Intervention | None = None) -> str:
    """A top-to-bottom diagram of an agent, with lesioned parts greyed and dashed."""
    iv = intervention or Intervention()
    active = iv.active_slots(config.n_slots) if config.workspace else 0
    bus_off = config.workspace and active == 0
    self_off = config.self_model and iv.self_model_mode != "on"
    # Top to bottom: drawn left to right, the chain of up to seven parts was about 2,000 px wide and
    # a page column shrank its text to 7 px. Stacked, it is about 650 px wide at its natural size,
    # so the text is read at FONT_SIZE on a laptop and shrinks less on a phone.
    lines = [
        "digraph agent {",
        "  rankdir=TB; nodesep=0.3; ranksep=0.3;",
        f'  node [shape=box, fontname="Helvetica", fontsize={FONT_SIZE}, margin="0.15,0.08"];',
        f'  edge [color="#555555", fontname="Helvetica", fontsize={FONT_SIZE - 3}];',
    ]

    def node(name: str, label: str, off: bool = False, style: str = _ON) -> None:
        lines.append(f'  {name} [label="{label}", {_OFF if off else style}];')

    node("grid", "7x7 grid view\\n+ task flags")
    node("cnn", "CNN encoder\\n(3 conv) -> 151")
    carrier = "GRU carrier\\n64" if config.recurrent else "MLP\\n(no memory)"
    node("carrier", carrier)
    lines += ["  grid -> cnn;", "  cnn -> carrier;"]
    if config.cue_route != "none":
        node("cue", "cue channel\\n(colour, object, masks)", style=_CUE)
    if config.workspace:
        slots = f"workspace\\n{active} of {config.n_slots} slots x {config.slot_dim}"
        node("bus", slots + ("\\n(lesioned: bus off)" if bus_off else ""), off=bus_off)
        lines += ['  cue -> bus [label="write"];', "  carrier -> bus [style=dotted];"]
    elif config.cue_route == "trunk":
        lines.append('  cue -> cnn [label="cues visible"];')
    readout = "policy\\n(7 actions)"
    if config.bottleneck:
        node(
            "bottleneck", f"{config.bottleneck} bottleneck\\n{config.bottleneck_dim}-d", off=bus_off
        )
        lines += ["  bus -> bottleneck;", "  bottleneck -> policy;"]
    elif config.workspace:
        lines.append('  bus -> policy [label="broadcast"];')
    if config.self_model:
        reads = config.self_model_inputs  # what z_self reads (E4's controls read less)
        width = f"{self_model_width(config)} -> {config.self_model_dim}"
        node(
            "zself",
            f"self-model z_self\\n{width}" + ("\\n(lesioned)" if self_off else ""),
            off=self_off,
        )
        node("conf", "confidence\\n(bet / opt out)", off=self_off)
        lines += ["  carrier -> zself;" if "h" in reads else "", "  zself -> conf;"]
        if config.workspace and "broadcast" in reads:
            lines.append('  bus -> zself [label="broadcast"];')
        intended = "logits" in reads or "uncertainty" in reads
        if config.policy_reads == "self_model":
            node("proposal", "proposal\\n(intended action)")
            lines += [
                "  carrier -> proposal;",
                "  proposal -> zself;" if intended else "",
                "  zself -> policy;",
            ]
            if config.workspace:
                lines.append("  bus -> proposal;")
        elif intended:
            lines.append('  policy -> zself [label="intended action"];')
    node("policy", readout)
    lines.append("  carrier -> policy;" if config.policy_reads != "self_model" else "")
    lines.append("}")
    return "\n".join(line for line in lines if line)
