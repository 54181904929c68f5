// Minibatch training with Adam and cross-entropy, one jitted program per step.
#pragma once

#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "data.hpp"
#include "models.hpp"
#include "progress.hpp"

namespace digits {

struct TrainOptions {
  int epochs = 20;
  std::int64_t batch = 32;
  double learning_rate = 3e-3;  // Adam; 1e-3 needs about twice the epochs
  tl::random::Key key = {};     // the order of the examples in each epoch
};

struct History {
  std::vector<double> loss = {};      // per epoch: the mean training loss over its steps
  std::vector<double> accuracy = {};  // per epoch: held-out accuracy after it
  double seconds = 0.0;               // training and evaluation, wall time
  nn::Params params = {};             // after the last epoch
};

// Trains `model` on split.train, evaluating on split.test after every epoch. Each
// epoch visits the training set in a new order (fold_in of the key with the epoch);
// the last incomplete batch is skipped, so every step has one shape and one program.
// Writes one line per epoch to stdout.
History train(const Model& model, const Split& split, const TrainOptions& options, Progress& progress);

// The histories as CSV: a header, then "model,epoch,loss,accuracy" per epoch. A
// tl::ValueError names the path when it cannot be written.
void write_history_csv(const std::filesystem::path& path,
                       const std::vector<std::pair<std::string, History>>& runs);

}  // namespace digits
