// Training progress on stderr: on a terminal, a bar redrawn in place (\r) as the
// steps of an epoch go by; otherwise one plain line per epoch, so that logs of runs
// under ctest or in a pipe stay readable.
#pragma once

#include <chrono>
#include <cstdint>
#include <iosfwd>
#include <string>

namespace digits {

class Progress {
 public:
  // interactive: redraw a bar; otherwise write one line per epoch.
  Progress(std::ostream& out, bool interactive) : out_(out), interactive_(interactive) {}
  // Whether stderr is a terminal (where a redrawn bar makes sense).
  static bool stderr_is_terminal();

  void start_epoch(const std::string& model, int epoch, int epochs, std::int64_t steps);
  // `done` steps of the epoch are done; `loss` is their mean so far.
  void step(std::int64_t done, double loss);
  // Erases the bar (terminal) or writes the epoch's line (otherwise).
  void end_epoch();

 private:
  using Clock = std::chrono::steady_clock;
  void draw(std::int64_t done, double loss);

  std::ostream& out_;
  bool interactive_;
  std::string model_;
  int epoch_ = 0, epochs_ = 0;
  std::int64_t steps_ = 0;
  Clock::time_point start_, last_draw_;
};

}  // namespace digits
