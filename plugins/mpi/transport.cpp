// libtlaloc_mpi.so: Tlaloc's collectives across the processes of an MPI job
// (src/runtime/mpi_transport.h says the interface; docs/DISTRIBUTED.md the model).
// Point to point over MPI_COMM_WORLD: each member of a group sends a block to every
// other member. MPI keeps the messages of one tag between two ranks in order, so
// consecutive exchanges of one group never mix; the tag is the op's, so processes in
// different ops never meet, and wait until the timeout names them.
#include <mpi.h>

#include <cstdio>
#include <cstring>
#include <ctime>
#include <string>
#include <vector>

#include "runtime/mpi_transport.h"

namespace {

constexpr std::size_t kPiece = std::size_t(1) << 30;

// The requests of one exchange: for each, the member it goes to or comes from, and
// for a receive the bytes it expects (-1 for a send).
struct Pending {
  std::vector<MPI_Request> requests;
  std::vector<int> member;
  std::vector<long long> expect;
};

int say(char* err, std::size_t len, const std::string& text) {
  std::snprintf(err, len, "%s", text.c_str());
  return 1;
}

std::string mpi_text(int code) {
  char text[MPI_MAX_ERROR_STRING] = {};
  int n = 0;
  MPI_Error_string(code, text, &n);
  return text;
}

// Posts a send or a receive of `bytes` bytes with group member `k` as messages of
// at most kPiece bytes (MPI counts in int).
template <class Start>
int post(Start start, void* data, std::size_t bytes, const int* group, int k, int tag, bool receive,
         Pending& p) {
  auto* at = static_cast<char*>(data);
  do {
    const std::size_t n = bytes < kPiece ? bytes : kPiece;
    p.requests.emplace_back();
    p.member.push_back(k);
    p.expect.push_back(receive ? static_cast<long long>(n) : -1);
    if (const int rc = start(at, int(n), MPI_BYTE, group[k], tag, MPI_COMM_WORLD, &p.requests.back());
        rc != MPI_SUCCESS)
      return rc;
    at += n;
    bytes -= n;
  } while (bytes > 0);
  return MPI_SUCCESS;
}

void pause_briefly() {
  const timespec t{0, 50000};  // 50 us: waiting long, leave the core to others
  nanosleep(&t, nullptr);
}

// After the timeout: names the members not heard from, and cancels what is left.
int timed_out(Pending& p, const int* group, double timeout, char* err, std::size_t len) {
  std::string missing;
  for (std::size_t i = 0; i < p.requests.size(); ++i) {
    int flag = 0;
    MPI_Status status;
    MPI_Request_get_status(p.requests[i], &flag, &status);
    if (flag != 0) continue;
    const std::string who = std::to_string(group[p.member[i]]);
    if (p.expect[i] >= 0 && missing.find(who) == std::string::npos)
      missing += (missing.empty() ? "" : ", ") + who;
    if (p.expect[i] >= 0) MPI_Cancel(&p.requests[i]);
    MPI_Request_free(&p.requests[i]);
  }
  return say(err, len,
             "no message from process " + (missing.empty() ? std::string("?") : missing) + " within " +
                 std::to_string(int(timeout)) +
                 " s (TLALOC_COLLECTIVE_TIMEOUT): it runs another op, or has stopped");
}

// Waits for every request; a message of another size than expected is named.
int wait(Pending& p, const int* group, double timeout, char* err, std::size_t len) {
  std::vector<MPI_Status> status(p.requests.size());
  const double start = MPI_Wtime();
  for (int done = 0;;) {
    const int rc = MPI_Testall(int(p.requests.size()), p.requests.data(), &done, status.data());
    if (rc == MPI_ERR_IN_STATUS) {
      for (std::size_t i = 0; i < status.size(); ++i)
        if (status[i].MPI_ERROR != MPI_SUCCESS && status[i].MPI_ERROR != MPI_ERR_PENDING)
          return say(err, len,
                     "the message from process " + std::to_string(group[p.member[i]]) + ": " +
                         mpi_text(status[i].MPI_ERROR) + " (do the processes run the same program?)");
    }
    if (rc != MPI_SUCCESS) return say(err, len, mpi_text(rc));
    if (done != 0) break;
    const double waited = MPI_Wtime() - start;
    if (waited > timeout) return timed_out(p, group, timeout, err, len);
    if (waited > 0.01) pause_briefly();
  }
  for (std::size_t i = 0; i < status.size(); ++i) {
    if (p.expect[i] < 0) continue;
    int got = 0;
    MPI_Get_count(&status[i], MPI_BYTE, &got);
    if (got != p.expect[i])
      return say(err, len,
                 "process " + std::to_string(group[p.member[i]]) + " sent " + std::to_string(got) +
                     " bytes where this one expects " + std::to_string(p.expect[i]) +
                     " (do the processes run the same program?)");
  }
  return 0;
}

}  // namespace

extern "C" {

__attribute__((visibility("default"))) int tlaloc_mpi_init(int* rank, int* size, char* err, std::size_t len) {
  int ready = 0;
  MPI_Initialized(&ready);
  if (ready == 0) {
    int provided = 0;
    if (const int rc = MPI_Init_thread(nullptr, nullptr, MPI_THREAD_MULTIPLE, &provided); rc != MPI_SUCCESS)
      return say(err, len, mpi_text(rc));
    if (provided < MPI_THREAD_SERIALIZED)
      return say(err, len,
                 "MPI gives thread level " + std::to_string(provided) +
                     "; Tlaloc calls it from several threads, one at a time");
  }
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  MPI_Comm_rank(MPI_COMM_WORLD, rank);
  MPI_Comm_size(MPI_COMM_WORLD, size);
  return 0;
}

__attribute__((visibility("default"))) int tlaloc_mpi_exchange_blocks(
    const int* group, int n, int me, int tag, double timeout_seconds, const void* const* send,
    const std::size_t* send_bytes, void* const* recv, const std::size_t* recv_bytes, char* err,
    std::size_t len) {
  Pending p;
  for (int k = 0; k < n; ++k) {
    if (k == me) continue;
    if (const int rc = post(MPI_Irecv, recv[k], recv_bytes[k], group, k, tag, true, p); rc != MPI_SUCCESS)
      return say(err, len, mpi_text(rc));
  }
  for (int k = 0; k < n; ++k) {
    if (k == me) continue;
    if (const int rc = post(MPI_Isend, const_cast<void*>(send[k]), send_bytes[k], group, k, tag, false, p);
        rc != MPI_SUCCESS)
      return say(err, len, mpi_text(rc));
  }
  return wait(p, group, timeout_seconds, err, len);
}

__attribute__((visibility("default"))) void tlaloc_mpi_finalize(void) {
  int done = 0;
  MPI_Finalized(&done);
  if (done == 0) MPI_Finalize();
}

}  // extern "C"
