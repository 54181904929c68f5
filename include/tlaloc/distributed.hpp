// Several processes, on one machine or several: a program started by `mpirun -np N`
// calls tl::distributed::initialize() first, and a tl::shard_map over a mesh of N
// devices then runs one device in each process, its collectives crossing processes
// through MPI (docs/DISTRIBUTED.md). Started without mpirun, the program is one
// process and a mesh's devices are its threads.
#pragma once

#include "tlaloc/export.hpp"

TLALOC_PUBLIC_BEGIN
namespace tlaloc::distributed {

struct World {
  int rank = 0;  // this process
  int size = 1;  // processes in the job
};

// Reads the MPI environment that mpirun sets. Without it: one process, and nothing
// happens. With it: loads Tlaloc's MPI transport (libtlaloc_mpi.so, installed beside
// the library), initializes MPI and makes the job's processes the devices of a mesh;
// Error naming what is missing when MPI cannot be loaded. Calling it again returns
// the same world. MPI is finalized at exit.
World initialize();
// The world initialize() made ({0, 1} before it).
World world();

}  // namespace tlaloc::distributed
TLALOC_PUBLIC_END
