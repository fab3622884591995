"""labcore: the science behind the Consciousness-Theories Ablation Lab (no Streamlit here; the
layers and where each concept lives: ``docs/ARCHITECTURE.md``).

Primary spec: Phua (2025), "Can We Test Consciousness Theories on AI? Ablations, Markers,
and Robustness". Every open design choice is pre-registered in ``docs/protocol.md``.
"""

from labcore import compute

# Pin the floating-point code paths before NumPy or torch compute; a bad CTLAB_COMPUTE falls
# back to "fast" here and the command line refuses it in one sentence (compute.mode_error).
try:
    compute.configure()
except ValueError as err:
    compute.mode_error = str(err)
    compute.configure("fast")

__version__ = "0.1.0"


class LabWarning(UserWarning):
    """Base class for warnings raised by labcore (e.g. an undefined marker value)."""


class UndefinedMetricWarning(LabWarning):
    """A marker is undefined for the given input: it returns ``nan``, the message says why and
    ``reason`` names the case (``"one_class"``, ``"zero_variance"``, ...)."""

    def __init__(self, message: str = "", reason: str | None = None) -> None:
        super().__init__(message)
        self.reason = reason
