/* The C interface between libtlaloc and its MPI transport, libtlaloc_mpi.so
 * (plugins/mpi). libtlaloc does not link MPI: tl::distributed::initialize loads the
 * transport when the program runs under mpirun, so that a program without MPI
 * installed still runs, in one process. Each function returns 0 on success, or
 * writes a message into err (len bytes) and returns nonzero. */
#ifndef TLALOC_RUNTIME_MPI_TRANSPORT_H
#define TLALOC_RUNTIME_MPI_TRANSPORT_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Initializes MPI (threads serialized at least) and gives this process's rank in
 * MPI_COMM_WORLD and the world's size. */
typedef int (*tlaloc_mpi_init_fn)(int* rank, int* size, char* err, size_t len);
/* Every member of `group` (n world ranks, this one at position me) sends send[k]
 * (send_bytes[k] bytes) to member k and receives member k's message into recv[k]
 * (recv_bytes[k] bytes, what member k sends it); the entries at me are not read.
 * Messages carry `tag` (the op: members in different ops do not meet). A message
 * of another size than expected, or none within timeout_seconds, is an error that
 * names the member. */
typedef int (*tlaloc_mpi_exchange_fn)(const int* group, int n, int me, int tag, double timeout_seconds,
                                      const void* const* send, const size_t* send_bytes, void* const* recv,
                                      const size_t* recv_bytes, char* err, size_t len);
/* Ends MPI once, at exit. */
typedef void (*tlaloc_mpi_finalize_fn)(void);

#define TLALOC_MPI_INIT "tlaloc_mpi_init"
#define TLALOC_MPI_EXCHANGE "tlaloc_mpi_exchange_blocks"
#define TLALOC_MPI_FINALIZE "tlaloc_mpi_finalize"

#ifdef __cplusplus
}
#endif

#endif
