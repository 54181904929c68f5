"""tlaloc_serve: runs Tlaloc's exported artifacts (docs/SERVING.md) on any PJRT plugin,
with Python's standard library only (ctypes over the PJRT C API).

    from tlaloc_serve import Model
    with Model.load("artifacts/mlp", plugin_path="libtlaloc_pjrt_cpu.so") as model:
        (logits,) = model.run("logits", [x])   # x: bytes, memoryview, array.array or Tensor
        values = logits.to_array()             # array.array('f')
"""

from .errors import ArtifactError, InputError, PluginError, TlalocServeError
from .model import Model, Tensor

__all__ = ["ArtifactError", "InputError", "Model", "PluginError", "Tensor", "TlalocServeError"]
