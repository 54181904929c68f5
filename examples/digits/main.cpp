// Tlaloc example: an MLP and a small CNN learn to read handwritten digits (the 1,797
// 8x8 images that scikit-learn ships), trained with Adam in minibatches, each step one
// jitted program. Prints the loss and held-out accuracy per epoch and writes a plot of
// both as SVG. README.md beside this file explains how to run it.
//
//   digits [--data FILE] [--out DIR] [--epochs N] [--seed N] [--check A]
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <iostream>
#include <optional>
#include <string>
#include <string_view>

#include "data.hpp"
#include "models.hpp"
#include "plot.hpp"
#include "progress.hpp"
#include "train.hpp"

namespace {

namespace fs = std::filesystem;

struct Options {
  fs::path data = TLALOC_DIGITS_CSV;  // where the build put it (examples/CMakeLists.txt)
  fs::path out = ".";
  int epochs = 20;
  std::uint32_t seed = 0;
  std::optional<double> check;
};

constexpr std::string_view kUsage =
    "usage: digits [--data FILE] [--out DIR] [--epochs N] [--seed N] [--check A]\n"
    "  --data FILE  the digits CSV (default: the copy the build put in its tree)\n"
    "  --out DIR    where to write digits.svg (the plot of loss and accuracy per epoch)\n"
    "               and history.csv (the same numbers) (default: .)\n"
    "  --epochs N   training epochs for each model (default: 20)\n"
    "  --seed N     seed of the initial parameters and of the order of the examples\n"
    "               (default: 0); the held-out split does not depend on it\n"
    "  --check A    exit with status 1 unless both models reach held-out accuracy >= A\n";

[[noreturn]] void usage_error(const std::string& what) {
  std::cerr << "digits: " << what << "\n" << kUsage;
  std::exit(2);
}

double parse_number(const std::string& flag, const std::string& text) {
  std::size_t used = 0;
  double v = 0;
  try {
    v = std::stod(text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used == 0 || used != text.size()) usage_error(flag + " needs a number, got '" + text + "'");
  return v;
}

Options parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string flag = argv[i];
    if (flag == "--help" || flag == "-h") {
      std::cout << kUsage;
      std::exit(0);
    }
    if (i + 1 >= argc)
      usage_error(flag == "--data" || flag == "--out" || flag == "--epochs" || flag == "--seed" ||
                          flag == "--check"
                      ? flag + " needs a value"
                      : "unknown option '" + flag + "'");
    const std::string value = argv[++i];
    if (flag == "--data") {
      o.data = value;
    } else if (flag == "--out") {
      o.out = value;
    } else if (flag == "--epochs") {
      const double n = parse_number(flag, value);
      if (!(n >= 1 && n <= 10000) || n != std::floor(n))
        usage_error("--epochs needs a whole number in 1..10000");
      o.epochs = static_cast<int>(n);
    } else if (flag == "--seed") {
      const double n = parse_number(flag, value);
      if (!(n >= 0 && n <= 4294967295.0) || n != std::floor(n))
        usage_error("--seed needs a whole number in 0..2^32-1");
      o.seed = static_cast<std::uint32_t>(n);
    } else if (flag == "--check") {
      o.check = parse_number(flag, value);
      if (!(*o.check >= 0 && *o.check <= 1)) usage_error("--check needs an accuracy in 0..1");
    } else {
      usage_error("unknown option '" + flag + "'");
    }
  }
  return o;
}

int run(const Options& o) {
  if (!fs::exists(o.data))
    throw tlaloc::ValueError("digits: no data file " + o.data.string() +
                             "; build the target 'digits' (it fetches the data) or run "
                             "examples/digits/get-data.sh DIR and pass --data DIR/digits.csv");
  const digits::Digits all = digits::load_digits(o.data);
  // The split comes from key 0 whatever the seed, so that runs with different seeds
  // are measured on the same held-out images; the seed gives each model's initial
  // parameters and the order of the examples in each epoch.
  const digits::Split split = digits::hold_out(all, 0.2, tlaloc::random::key(0));
  const std::vector<tlaloc::random::Key> keys =
      tlaloc::random::split(tlaloc::random::fold_in(tlaloc::random::key(0), o.seed), 3);
  std::printf("%lld images: %lld for training, %lld held out\n", static_cast<long long>(all.size()),
              static_cast<long long>(split.train.size()), static_cast<long long>(split.test.size()));

  digits::Progress progress(std::cerr, digits::Progress::stderr_is_terminal());
  std::vector<digits::Panel> panels{{"training loss", {}}, {"held-out accuracy", {}}};
  std::vector<std::pair<std::string, digits::History>> runs;
  bool passed = true;
  const std::pair<digits::Model, const char*> models[] = {{digits::make_mlp(keys[0]), "#1f77b4"},
                                                          {digits::make_cnn(keys[1]), "#d62728"}};
  for (const auto& [model, color] : models) {
    std::printf("%s: %s\n", model.name.c_str(), model.description.c_str());
    std::fflush(stdout);
    const digits::History h = digits::train(model, split, {.epochs = o.epochs, .key = keys[2]}, progress);
    std::printf("%s: held-out accuracy %.4f after %d epoch%s, %.2f s\n", model.name.c_str(),
                h.accuracy.back(), o.epochs, o.epochs == 1 ? "" : "s", h.seconds);
    panels[0].series.push_back({model.name, color, h.loss});
    panels[1].series.push_back({model.name, color, h.accuracy});
    runs.emplace_back(model.name, h);
    if (o.check && !(h.accuracy.back() >= *o.check)) {
      std::fprintf(stderr, "digits: --check %g failed: %s reached held-out accuracy %.4f\n", *o.check,
                   model.name.c_str(), h.accuracy.back());
      passed = false;
    }
  }
  fs::create_directories(o.out);
  const fs::path plot = o.out / "digits.svg";
  digits::write_svg_plot(
      plot, "Tlaloc: handwritten digits (" + std::to_string(split.test.size()) + " held out)", panels);
  digits::write_history_csv(o.out / "history.csv", runs);
  std::printf("plot: %s (numbers: %s)\n", plot.string().c_str(), (o.out / "history.csv").string().c_str());
  return passed ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  const Options options = parse(argc, argv);
  try {
    return run(options);
  } catch (const std::exception& e) {
    std::fflush(stdout);
    std::cerr << e.what() << "\n";
    return 1;
  }
}
