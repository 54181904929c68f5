// oracle_cases OUT.json: runs every public op of include/tlaloc/ops.hpp on
// deterministic inputs and writes the cases for check_torch.py to evaluate with
// PyTorch (the ctest test oracle.torch runs both).
#include <cstdio>
#include <fstream>

#include "oracle_table.hpp"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s OUT.json\n", argv[0]);
    return 2;
  }
  // One thread: the cases are small, and results then match any machine's run.
  tlaloc::set_num_threads(1);
  oracle::Table table;
  oracle::add_unary_cases(table);
  oracle::add_binary_cases(table);
  oracle::add_select_cases(table);
  oracle::add_reduce_cases(table);
  oracle::add_linalg_cases(table);
  oracle::add_shape_cases(table);
  oracle::add_index_cases(table);
  oracle::add_nn_cases(table);
  oracle::add_special_cases(table);

  std::ofstream out(argv[1]);
  out << nlohmann::json{{"cases", table.json()}}.dump() << '\n';
  if (!out) {
    std::fprintf(stderr, "oracle_cases: cannot write %s\n", argv[1]);
    return 1;
  }
  std::printf("oracle_cases: %zu cases written to %s\n", table.json().size(), argv[1]);
  return 0;
}
