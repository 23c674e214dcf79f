# test/gpu/ncu_env.sh - sourced by the Nsight Compute scripts
# (decode_ncu.sh, decode_src_ncu.sh) after they set O: makes the log
# folder O (absolute), moves to the repository root, and sets NVCC and
# NCU (NCU from the environment first).  Exits the script when O cannot
# be made.
mkdir -p "$O" && O=$(cd "$O" && pwd) || exit 1
cd "$(dirname "${BASH_SOURCE[0]}")/../.." || exit 1
# the bundle's LD_LIBRARY_PATH holds an older libstdc++ than nvcc's programs need
unset LD_LIBRARY_PATH
NVCC=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
NCU=${NCU:-$(command -v ncu || echo /usr/local/cuda/bin/ncu)}
