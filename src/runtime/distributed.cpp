// tl::distributed (include/tlaloc/distributed.hpp): the processes of an MPI job as a
// 1 x size grid (ops/processes.hpp), their exchanges through Tlaloc's MPI transport
// (plugins/mpi, src/runtime/mpi_transport.h), loaded only when the program runs
// under mpirun.
#include <dlfcn.h>
#include <fmt/format.h>

#include <cstdlib>
#include <cstring>
#include <mutex>

#include "core/check.hpp"
#include "core/tensor_impl.hpp"
#include "ops/processes.hpp"
#include "runtime/installed.hpp"
#include "runtime/mpi_transport.h"
#include "tlaloc/distributed.hpp"

namespace tlaloc::distributed {
namespace {

namespace fs = std::filesystem;

constexpr std::string_view kWho = "tl::distributed::initialize";

// What mpirun (OpenMPI's, or a PMI launcher) sets in each process it starts.
const char* launcher_variable() {
  for (const char* v : {"OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_SIZE"})
    if (std::getenv(v) != nullptr) return v;
  return nullptr;
}

struct Transport {
  tlaloc_mpi_init_fn init = nullptr;
  tlaloc_mpi_exchange_fn exchange = nullptr;
  tlaloc_mpi_finalize_fn finalize = nullptr;
};

fs::path transport_path() {
  if (const char* p = std::getenv("TLALOC_MPI_TRANSPORT"); p != nullptr && *p != '\0') return p;
  const std::vector<fs::path> candidates = runtime::module_candidates(TLALOC_MPI_TRANSPORT_FILE);
  for (const fs::path& c : candidates) {
    std::error_code ec;
    if (fs::is_regular_file(c, ec)) return c;
  }
  throw Error(
      fmt::format("{}: the program runs under mpirun ({} is set), but Tlaloc's MPI transport is not "
                  "installed beside the library (looked for '{}' and '{}'; TLALOC_MPI_TRANSPORT names "
                  "another): this build of Tlaloc has no MPI",
                  kWho, launcher_variable(), candidates[0].string(), candidates[1].string()));
}

Transport load() {
  const fs::path path = transport_path();
  // The handle stays open for the program's life: MPI is finalized at exit.
  void* h = ::dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (h == nullptr) {
    const char* why = ::dlerror();
    throw Error(
        fmt::format("{}: cannot load Tlaloc's MPI transport '{}': {} (is MPI installed? Debian: "
                    "libopenmpi3)",
                    kWho, path.string(), why != nullptr ? why : "dlopen failed"));
  }
  Transport t;
  t.init = reinterpret_cast<tlaloc_mpi_init_fn>(::dlsym(h, TLALOC_MPI_INIT));
  t.exchange = reinterpret_cast<tlaloc_mpi_exchange_fn>(::dlsym(h, TLALOC_MPI_EXCHANGE));
  t.finalize = reinterpret_cast<tlaloc_mpi_finalize_fn>(::dlsym(h, TLALOC_MPI_FINALIZE));
  if (t.init == nullptr || t.exchange == nullptr || t.finalize == nullptr)
    throw Error(
        fmt::format("{}: '{}' is not Tlaloc's MPI transport (a function is missing)", kWho, path.string()));
  return t;
}

// The processes of the job: partition `rank` of a 1 x size grid.
class MpiProcesses final : public detail::Processes {
 public:
  MpiProcesses(Transport t, int rank, int size) : t_(t), rank_(rank), size_(size) {}
  std::int64_t num_replicas() const override { return 1; }
  std::int64_t num_partitions() const override { return size_; }
  detail::ProcessIndex self() const override { return rank_; }

  std::vector<Tensor> exchange(std::string_view op, std::span<const detail::ProcessIndex> group,
                               const Tensor& mine) override {
    std::vector<int> ranks(group.begin(), group.end());
    int me = -1;
    for (std::size_t k = 0; k < ranks.size(); ++k)
      if (ranks[k] == rank_) me = int(k);
    if (me < 0) detail::fail(op, "process {} is not in the group it exchanges with", rank_);
    const std::size_t bytes = std::size_t(mine.numel()) * itemsize(mine.dtype());
    std::vector<char> all(bytes * ranks.size());
    char err[512] = {};
    const std::lock_guard lock(mutex_);  // MPI is called by one thread at a time
    if (t_.exchange(ranks.data(), int(ranks.size()), me, mine.raw_data(), bytes, all.data(), err,
                    sizeof err) != 0)
      detail::fail(op, "process {} of an MPI job of {}: {}", rank_, size_, err);
    std::vector<Tensor> out;
    for (std::size_t k = 0; k < ranks.size(); ++k) {
      Tensor v = detail::empty(mine.shape(), mine.dtype());
      if (bytes > 0) std::memcpy(detail::mutable_data<char>(v), all.data() + k * bytes, bytes);
      out.push_back(std::move(v));
    }
    return out;
  }
  void send(std::string_view op, std::int64_t, std::vector<Tensor>) override {
    detail::fail(op, "send and recv between the processes of an MPI job are not supported yet");
  }
  std::vector<Tensor> recv(std::string_view op, std::int64_t) override {
    detail::fail(op, "send and recv between the processes of an MPI job are not supported yet");
  }

 private:
  Transport t_;
  int rank_, size_;
  std::mutex mutex_;
};

std::mutex world_mutex;
World the_world;
bool initialized = false;
tlaloc_mpi_finalize_fn finalize_at_exit = nullptr;

}  // namespace

World initialize() {
  const std::lock_guard lock(world_mutex);
  if (initialized) return the_world;
  if (launcher_variable() != nullptr) {
    const Transport t = load();
    char err[512] = {};
    int rank = 0, size = 1;
    if (t.init(&rank, &size, err, sizeof err) != 0)
      throw Error(fmt::format("{}: MPI failed to start: {}", kWho, err));
    finalize_at_exit = t.finalize;
    std::atexit([] { finalize_at_exit(); });
    the_world = {rank, size};
    if (size > 1) detail::set_distributed_world(std::make_unique<MpiProcesses>(t, rank, size));
  }
  initialized = true;
  return the_world;
}

World world() {
  const std::lock_guard lock(world_mutex);
  return the_world;
}

}  // namespace tlaloc::distributed
