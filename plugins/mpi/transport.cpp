// libtlaloc_mpi.so: Tlaloc's collectives across the processes of an MPI job
// (src/runtime/mpi_transport.h says the interface; docs/DISTRIBUTED.md the model).
// Point to point over MPI_COMM_WORLD: each member of a group sends its value to
// every other member. MPI keeps the messages between two ranks in order, so
// consecutive exchanges of one group never mix.
#include <mpi.h>

#include <climits>
#include <cstdio>
#include <cstring>
#include <vector>

#include "runtime/mpi_transport.h"

namespace {

constexpr int kExchangeTag = 17;

int failed(int code, char* err, std::size_t len) {
  char text[MPI_MAX_ERROR_STRING] = {};
  int n = 0;
  MPI_Error_string(code, text, &n);
  std::snprintf(err, len, "%s", text);
  return 1;
}

}  // namespace

extern "C" {

__attribute__((visibility("default"))) int tlaloc_mpi_init(int* rank, int* size, char* err, std::size_t len) {
  int ready = 0;
  MPI_Initialized(&ready);
  if (ready == 0) {
    int provided = 0;
    if (const int rc = MPI_Init_thread(nullptr, nullptr, MPI_THREAD_MULTIPLE, &provided); rc != MPI_SUCCESS)
      return failed(rc, err, len);
    if (provided < MPI_THREAD_SERIALIZED) {
      std::snprintf(err, len,
                    "MPI gives thread level %d; Tlaloc calls it from several threads, one at a time",
                    provided);
      return 1;
    }
  }
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  MPI_Comm_rank(MPI_COMM_WORLD, rank);
  MPI_Comm_size(MPI_COMM_WORLD, size);
  return 0;
}

__attribute__((visibility("default"))) int tlaloc_mpi_exchange(const int* group, int n, int me,
                                                               const void* mine, std::size_t bytes, void* all,
                                                               char* err, std::size_t len) {
  if (bytes > std::size_t(INT_MAX)) {
    std::snprintf(err, len, "a value of %zu bytes is more than one MPI message holds (%d)", bytes, INT_MAX);
    return 1;
  }
  auto* out = static_cast<char*>(all);
  if (bytes > 0) std::memcpy(out + std::size_t(me) * bytes, mine, bytes);
  std::vector<MPI_Request> requests;
  for (int k = 0; k < n; ++k) {
    if (k == me) continue;
    requests.emplace_back();
    if (const int rc = MPI_Irecv(out + std::size_t(k) * bytes, int(bytes), MPI_BYTE, group[k], kExchangeTag,
                                 MPI_COMM_WORLD, &requests.back());
        rc != MPI_SUCCESS)
      return failed(rc, err, len);
  }
  for (int k = 0; k < n; ++k) {
    if (k == me) continue;
    requests.emplace_back();
    if (const int rc =
            MPI_Isend(mine, int(bytes), MPI_BYTE, group[k], kExchangeTag, MPI_COMM_WORLD, &requests.back());
        rc != MPI_SUCCESS)
      return failed(rc, err, len);
  }
  if (const int rc = MPI_Waitall(int(requests.size()), requests.data(), MPI_STATUSES_IGNORE);
      rc != MPI_SUCCESS)
    return failed(rc, err, len);
  return 0;
}

__attribute__((visibility("default"))) void tlaloc_mpi_finalize(void) {
  int done = 0;
  MPI_Finalized(&done);
  if (done == 0) MPI_Finalize();
}

}  // extern "C"
