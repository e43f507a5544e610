"""symm.torch: PyTorch training on symm.

Importing it registers the torch.distributed backend "symm":

    import symm.torch
    dist.init_process_group("symm")      # under torchrun, oshrun or mpirun
    dist.all_reduce(t)                   # through symm

and gives DDP communication hooks that average gradients through symm
whichever backend DDP's process group is (gloo's or symm's):

    model.register_comm_hook(None, symm.torch.allreduce_hook)

CPU tensors only. See docs/user-guide/python.md ("PyTorch training").
"""

from . import backend
from .backend import ProcessGroupSymm
from .hooks import allreduce_hook, bf16_compress_hook, fp16_compress_hook

backend.register()

__all__ = ["ProcessGroupSymm", "allreduce_hook", "fp16_compress_hook", "bf16_compress_hook"]
