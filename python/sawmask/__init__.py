"""saw.mask/1 attention masks for NumPy, PyTorch FlexAttention and JAX, with the meaning of saw's Java engine.

    import sawmask
    cfg = sawmask.load("mask.json")          # a path, JSON text or a dict; ConfigError names the JSON path at fault
    sawmask.numpy.dense(cfg)                 # bool [B|1, H|1, Sq, Skv] (small sizes)
    sawmask.torch.mask_mod(cfg)              # a closed-form FlexAttention mask_mod (imports torch)
    sawmask.jax.splash_mask(cfg)             # splash-attention mask objects (imports jax)
"""

from . import masks
from . import numpy
from .config import ConfigError, MaskConfig, load, load_export
from .masks import random_row

__all__ = ["ConfigError", "MaskConfig", "load", "load_export", "masks", "numpy", "random_row"]
__version__ = "0.1.0"


def __getattr__(name):
    # the framework adapters import torch or jax only when asked for
    if name in ("torch", "jax"):
        import importlib
        return importlib.import_module(f".{name}", __name__)
    raise AttributeError(f"module 'sawmask' has no attribute {name!r}")
