// libtlaloc_mpi.so: Tlaloc's collectives across the processes of an MPI job
// (src/runtime/mpi_transport.h says the interface; docs/DISTRIBUTED.md the model).
// Point to point over MPI_COMM_WORLD: each member of a group sends a block to every
// other member. MPI keeps the messages between two ranks in order, so consecutive
// exchanges of one group never mix.
#include <mpi.h>

#include <cstdio>
#include <cstring>
#include <vector>

#include "runtime/mpi_transport.h"

namespace {

constexpr int kExchangeTag = 17;
constexpr std::size_t kPiece = std::size_t(1) << 30;

int failed(int code, char* err, std::size_t len) {
  char text[MPI_MAX_ERROR_STRING] = {};
  int n = 0;
  MPI_Error_string(code, text, &n);
  std::snprintf(err, len, "%s", text);
  return 1;
}

// Posts a send or a receive of `bytes` bytes with `peer` as messages of at most
// kPiece bytes (MPI counts in int); MPI keeps them in order between two ranks.
template <class Post>
int post(Post start, void* data, std::size_t bytes, int peer, std::vector<MPI_Request>& requests) {
  auto* at = static_cast<char*>(data);
  do {
    const std::size_t n = bytes < kPiece ? bytes : kPiece;
    requests.emplace_back();
    if (const int rc = start(at, int(n), MPI_BYTE, peer, kExchangeTag, MPI_COMM_WORLD, &requests.back());
        rc != MPI_SUCCESS)
      return rc;
    at += n;
    bytes -= n;
  } while (bytes > 0);
  return MPI_SUCCESS;
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

__attribute__((visibility("default"))) int tlaloc_mpi_exchange_blocks(
    const int* group, int n, int me, const void* const* send, const std::size_t* send_bytes,
    void* const* recv, const std::size_t* recv_bytes, char* err, std::size_t len) {
  std::vector<MPI_Request> requests;
  for (int k = 0; k < n; ++k) {
    if (k == me) continue;
    if (const int rc = post(MPI_Irecv, recv[k], recv_bytes[k], group[k], requests); rc != MPI_SUCCESS)
      return failed(rc, err, len);
  }
  for (int k = 0; k < n; ++k) {
    if (k == me) continue;
    if (const int rc = post(MPI_Isend, const_cast<void*>(send[k]), send_bytes[k], group[k], requests);
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
