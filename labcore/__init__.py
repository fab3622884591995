"""labcore: the science behind the Consciousness-Theories Ablation Lab.

Tasks (``labcore.envs``), agents (``labcore.agents``), run-time interventions
(``labcore.interventions``), training (``labcore.training``), markers
(``labcore.markers``), seed-level statistics (``labcore.stats``) and the experiment
pipelines and studies (``labcore.experiments``; a result set's files and findings:
``labcore.experiments.paper_results``, ``labcore.findings``), the one renderer
(``labcore.render``), the figures (``labcore.figures``) and the HTML report
(``labcore.report``). Nothing here imports Streamlit: the app in ``app.py``/``app_pages/`` is a
thin layer on top. The layers and where each concept lives: ``docs/ARCHITECTURE.md``.

Primary spec: Phua (2025), "Can We Test Consciousness Theories on AI? Ablations, Markers,
and Robustness". Every open design choice is pre-registered in ``docs/protocol.md``.
"""

from labcore import compute

# Pin the floating-point code paths before NumPy or torch compute (labcore.compute: "fast" by
# default, "portable" with CTLAB_COMPUTE=portable). A bad value falls back to "fast" here and
# the command line refuses it in one sentence (compute.mode_error).
try:
    compute.configure()
except ValueError as err:
    compute.mode_error = str(err)
    compute.configure("fast")

__version__ = "0.1.0"


class LabWarning(UserWarning):
    """Base class for warnings raised by labcore (e.g. an undefined marker value)."""


class UndefinedMetricWarning(LabWarning):
    """A marker is undefined for the given input (one class only, zero variance, ...).

    The function returns ``nan`` (never a silent default) and says why in the message;
    ``reason`` names the case for a caller (or a test) that reads the record rather than the
    sentence (``"one_class"``, ``"zero_variance"``, ``"too_few"``, ...; None where unnamed).
    """

    def __init__(self, message: str = "", reason: str | None = None) -> None:
        super().__init__(message)
        self.reason = reason
