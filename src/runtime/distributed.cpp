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
#include "interp/parallel.hpp"
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

// The MPI tag of an op's messages, so that processes in different ops do not meet:
// a hash of its name below 32767, the least tag bound MPI allows.
int tag_of(std::string_view op) {
  std::uint32_t h = 2166136261u;  // FNV-1a
  for (char c : op) h = (h ^ std::uint8_t(c)) * 16777619u;
  return int(h % 32767u);
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
    const Members m = members(op, group);
    const std::size_t bytes = bytes_of(mine);
    std::vector<Tensor> out;
    Blocks b(m.ranks.size());
    for (std::size_t k = 0; k < m.ranks.size(); ++k) {
      out.push_back(k == m.me ? mine : detail::empty(mine.shape(), mine.dtype()));
      b.set(k, mine.raw_data(), bytes, out[k]);
    }
    run(op, m, b);
    return out;
  }

  // A reduce-scatter, then an all-gather: member k folds part k of every value (the
  // elements from N*k/n on) in the group's order, which is each element's order in
  // the fold of exchange, so the bits are the same; each then sends its part to all.
  Tensor reduce(std::string_view op, std::span<const detail::ProcessIndex> group, const Tensor& mine,
                const Combine& combine) override {
    const Members m = members(op, group);
    const auto n = std::int64_t(m.ranks.size());
    const std::int64_t count = mine.numel();
    if (count < n) return Processes::reduce(op, group, mine, combine);
    const std::size_t item = itemsize(mine.dtype());
    const auto start = [&](std::int64_t k) { return count * k / n; };
    const auto at = [&](std::int64_t k) {
      return static_cast<const char*>(mine.raw_data()) + start(k) * item;
    };
    const auto me = std::int64_t(m.me);
    const std::int64_t own = start(me + 1) - start(me);

    std::vector<Tensor> parts;
    Blocks scatter(m.ranks.size());
    for (std::int64_t k = 0; k < n; ++k) {
      parts.push_back(k == me ? detail::elements(mine, start(me), own) : detail::empty({own}, mine.dtype()));
      scatter.set(std::size_t(k), at(k), std::size_t(start(k + 1) - start(k)) * item, parts.back());
    }
    run(op, m, scatter);
    Tensor folded = parts[0];
    for (std::size_t k = 1; k < parts.size(); ++k) folded = combine(folded, parts[k]);

    Tensor out = detail::empty(mine.shape(), mine.dtype());
    Blocks gather(m.ranks.size());
    for (std::int64_t k = 0; k < n; ++k) {
      const Tensor whole = detail::elements(out, start(k), start(k + 1) - start(k));
      gather.set(std::size_t(k), folded.raw_data(), bytes_of(folded), whole);
      if (k == me && own > 0)
        std::memcpy(detail::mutable_data<char>(whole), folded.raw_data(), bytes_of(folded));
    }
    run(op, m, gather);
    return out;
  }
  void send(std::string_view op, std::int64_t, std::vector<Tensor>) override {
    detail::fail(op, "send and recv between the processes of an MPI job are not supported yet");
  }
  std::vector<Tensor> recv(std::string_view op, std::int64_t) override {
    detail::fail(op, "send and recv between the processes of an MPI job are not supported yet");
  }

 private:
  // A group's world ranks and this process's position among them.
  struct Members {
    std::vector<int> ranks;
    std::size_t me = 0;
  };
  Members members(std::string_view op, std::span<const detail::ProcessIndex> group) const {
    Members m{{group.begin(), group.end()}, group.size()};
    for (std::size_t k = 0; k < m.ranks.size(); ++k)
      if (m.ranks[k] == rank_) m.me = k;
    if (m.me == group.size()) detail::fail(op, "process {} is not in the group it exchanges with", rank_);
    return m;
  }
  // What an exchange sends to and receives from each member.
  struct Blocks {
    explicit Blocks(std::size_t n) : send(n), send_bytes(n), recv(n), recv_bytes(n) {}
    void set(std::size_t k, const void* data, std::size_t bytes, const Tensor& into) {
      send[k] = data;
      send_bytes[k] = bytes;
      recv[k] = detail::mutable_data<char>(into);
      recv_bytes[k] = bytes_of(into);
    }
    std::vector<const void*> send;
    std::vector<std::size_t> send_bytes;
    std::vector<void*> recv;
    std::vector<std::size_t> recv_bytes;
  };
  void run(std::string_view op, const Members& m, const Blocks& b) {
    char err[512] = {};
    const std::lock_guard lock(mutex_);  // MPI is called by one thread at a time
    if (t_.exchange(m.ranks.data(), int(m.ranks.size()), int(m.me), tag_of(op),
                    interp::collective_timeout_seconds(), b.send.data(), b.send_bytes.data(), b.recv.data(),
                    b.recv_bytes.data(), err, sizeof err) != 0)
      detail::fail(op, "process {} of an MPI job of {}: {}", rank_, size_, err);
  }
  static std::size_t bytes_of(const Tensor& t) { return std::size_t(t.numel()) * itemsize(t.dtype()); }

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
