"""Run a torch.distributed program (one that calls init_process_group()
with the env:// defaults) as one PE under oshrun: RANK, WORLD_SIZE,
LOCAL_RANK and MASTER_ADDR/MASTER_PORT from what oshrun tells its PEs (the
port one above its bootstrap's), so the RFC's examples run unchanged under
oshrun too (symm then starts from oshrun's bootstrap, torch from these).

    oshrun -np N python3 as_torchrun.py PROGRAM [ARGS...]
"""
import os
import runpy
import sys

rank, size = os.environ["SYMM_RANK"], os.environ["SYMM_SIZE"]
port = int(os.environ["SYMM_BOOT_ADDR"].rsplit(":", 1)[1])
os.environ.update(RANK=rank, WORLD_SIZE=size, LOCAL_RANK=rank, LOCAL_WORLD_SIZE=size,
                  MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port + 1 if port < 65535 else port - 1))
sys.argv = sys.argv[1:]
runpy.run_path(sys.argv[0], run_name="__main__")
