#include "progress.hpp"

#include <unistd.h>

#include <cstdio>
#include <iomanip>
#include <ostream>
#include <sstream>

namespace digits {

namespace {
constexpr int kBarWidth = 30;
// A terminal is redrawn at most this often: drawing every step of a fast epoch would
// cost more than the step.
constexpr auto kRedrawEvery = std::chrono::milliseconds(50);
}  // namespace

bool Progress::stderr_is_terminal() { return isatty(fileno(stderr)) != 0; }

void Progress::start_epoch(const std::string& model, int epoch, int epochs, std::int64_t steps) {
  model_ = model;
  epoch_ = epoch;
  epochs_ = epochs;
  steps_ = steps;
  start_ = Clock::now();
  last_draw_ = {};
  if (interactive_) draw(0, 0.0);
}

void Progress::step(std::int64_t done, double loss) {
  if (!interactive_) return;
  const Clock::time_point now = Clock::now();
  if (done < steps_ && now - last_draw_ < kRedrawEvery) return;
  last_draw_ = now;
  draw(done, loss);
}

void Progress::draw(std::int64_t done, double loss) {
  const auto filled = static_cast<int>(kBarWidth * done / (steps_ > 0 ? steps_ : 1));
  std::ostringstream line;
  line << '\r' << model_ << " epoch " << std::setw(2) << epoch_ << '/' << epochs_ << " ["
       << std::string(static_cast<std::size_t>(filled), '#')
       << std::string(static_cast<std::size_t>(kBarWidth - filled), '.') << "] " << std::setw(3) << done
       << '/' << steps_;
  if (done > 0) line << "  loss " << std::fixed << std::setprecision(4) << loss;
  out_ << line.str() << std::flush;
}

void Progress::end_epoch() {
  const double seconds = std::chrono::duration<double>(Clock::now() - start_).count();
  if (interactive_) {
    out_ << "\r\033[K" << std::flush;  // the epoch's line on stdout replaces the bar
  } else {
    out_ << model_ << " epoch " << epoch_ << '/' << epochs_ << ": " << steps_ << " steps in " << std::fixed
         << std::setprecision(2) << seconds << " s" << std::endl;
  }
}

}  // namespace digits
