// Programs that cannot work across the processes of an MPI job, each refused by name
// on every process instead of hanging (ctest distributed.mpi_failures_are_named runs
// them under `mpirun -np 2` with TLALOC_COLLECTIVE_TIMEOUT=2):
//   mesh      a mesh of 4 devices in a job of 2 processes
//   ops       process 0 in a psum, process 1 in an all_gather: they never meet
//   sizes     the processes psum values of different sizes
// Each process prints what refused it ("process R: ...") and exits 0; a run that is
// not refused exits 1.
#include <cstdio>
#include <string>

#include "tlaloc/distributed.hpp"
#include "tlaloc/tlaloc.hpp"

namespace tl = tlaloc;

int main(int argc, char** argv) {
  const std::string mode = argc > 1 ? argv[1] : "";
  const tl::distributed::World world = tl::distributed::initialize();
  const auto sum = [](const tl::Tensor& v) { return tl::psum(v, "d"); };
  const auto gathered = [](const tl::Tensor& v) { return tl::slice(tl::all_gather(v, "d", 0), 0, 0, 3); };
  try {
    if (mode == "mesh") {
      (void)tl::shard_map(sum, tl::Mesh({{"d", 4}}), {tl::P()}, tl::P())(tl::ones({3}));
    } else if (mode == "ops") {
      const tl::Mesh mesh({{"d", 2}});
      (void)tl::shard_map(world.rank == 0 ? sum : gathered, mesh, {tl::P()}, tl::P())(tl::ones({3}));
    } else if (mode == "sizes") {
      (void)tl::shard_map(sum, tl::Mesh({{"d", 2}}), {tl::P()}, tl::P())(tl::ones({world.rank == 0 ? 3 : 5}));
    } else {
      std::fprintf(stderr, "usage: mpi_failures mesh|ops|sizes\n");
      return 2;
    }
  } catch (const tl::Error& e) {
    std::fprintf(stderr, "process %d: %s\n", world.rank, e.what());
    return 0;
  }
  std::fprintf(stderr, "process %d: not refused\n", world.rank);
  return 1;
}
