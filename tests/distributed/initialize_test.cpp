// tl::distributed::initialize outside mpirun does nothing; under mpirun's environment
// without Tlaloc's MPI transport it fails naming what is missing, never a crash.
// (distributed.mpi_matches_threads runs the transport under mpirun.)
#include <gtest/gtest.h>

#include <cstdlib>

#include "support/expect_error.hpp"
#include "tlaloc/distributed.hpp"
#include "tlaloc/error.hpp"

namespace tl = tlaloc;

namespace {

// Sets an environment variable for the scope's life.
class Env {
 public:
  Env(const char* name, const char* value) : name_(name) { ::setenv(name, value, 1); }
  ~Env() { ::unsetenv(name_); }
  Env(const Env&) = delete;
  Env& operator=(const Env&) = delete;

 private:
  const char* name_;
};

TEST(Distributed, UnderMpirunWithoutTheTransportTheErrorSaysWhatIsMissing) {
  {
    const Env launched("OMPI_COMM_WORLD_SIZE", "2");
    const Env transport("TLALOC_MPI_TRANSPORT", "/nonexistent/libtlaloc_mpi.so");
    tltest::expect_error_with<tl::Error>([] { (void)tl::distributed::initialize(); },
                                         {"tl::distributed::initialize", "cannot load Tlaloc's MPI transport",
                                          "/nonexistent/libtlaloc_mpi.so"});
  }
  {
    const Env launched("OMPI_COMM_WORLD_SIZE", "2");
    ::unsetenv("TLALOC_MPI_TRANSPORT");
    tltest::expect_error_with<tl::Error>([] { (void)tl::distributed::initialize(); },
                                         {"OMPI_COMM_WORLD_SIZE is set", "MPI transport is not installed"});
  }
  // Without mpirun's environment: one process, nothing loaded.
  const tl::distributed::World w = tl::distributed::initialize();
  EXPECT_EQ(w.rank, 0);
  EXPECT_EQ(w.size, 1);
  EXPECT_EQ(tl::distributed::world().size, 1);
}

}  // namespace
