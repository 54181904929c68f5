#include "data.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <fstream>
#include <numeric>
#include <string>
#include <string_view>

namespace digits {
namespace {

[[noreturn]] void bad_line(const std::filesystem::path& csv, std::int64_t line, const std::string& what) {
  throw tl::ValueError("digits: " + csv.string() + ":" + std::to_string(line) + ": " + what);
}

// One line's 65 integers: 64 pixels then the label.
std::vector<int> parse_line(std::string_view text, const std::filesystem::path& csv, std::int64_t line) {
  std::vector<int> values;
  std::size_t pos = 0;
  while (pos <= text.size()) {
    const std::size_t comma = std::min(text.find(',', pos), text.size());
    const std::string_view field = text.substr(pos, comma - pos);
    int v = 0;
    const auto [end, ec] = std::from_chars(field.data(), field.data() + field.size(), v);
    if (ec != std::errc() || end != field.data() + field.size())
      bad_line(
          csv, line,
          "field " + std::to_string(values.size() + 1) + " is '" + std::string(field) + "', not an integer");
    values.push_back(v);
    pos = comma + 1;
  }
  if (values.size() != static_cast<std::size_t>(kPixels + 1))
    bad_line(csv, line,
             "expected " + std::to_string(kPixels + 1) + " values (64 pixels and a label), found " +
                 std::to_string(values.size()));
  for (std::int64_t i = 0; i < kPixels; ++i)
    if (values[i] < 0 || values[i] > 16)
      bad_line(csv, line,
               "pixel " + std::to_string(i + 1) + " is " + std::to_string(values[i]) + ", not in 0..16");
  if (values.back() < 0 || values.back() >= kClasses)
    bad_line(csv, line, "the label is " + std::to_string(values.back()) + ", not in 0..9");
  return values;
}

}  // namespace

Digits load_digits(const std::filesystem::path& csv) {
  std::ifstream in(csv);
  if (!in) throw tl::ValueError("digits: cannot open " + csv.string());
  std::vector<float> pixels;
  std::vector<std::int64_t> labels;
  std::string text;
  for (std::int64_t line = 1; std::getline(in, text); ++line) {
    if (!text.empty() && text.back() == '\r') text.pop_back();
    if (text.empty()) continue;
    const std::vector<int> values = parse_line(text, csv, line);
    for (std::int64_t i = 0; i < kPixels; ++i) pixels.push_back(static_cast<float>(values[i]) / 16.0f);
    labels.push_back(values.back());
  }
  if (labels.empty()) throw tl::ValueError("digits: " + csv.string() + " has no data lines");
  const auto n = static_cast<std::int64_t>(labels.size());
  return {tl::tensor(pixels, {n, kPixels}), tl::tensor(labels, {n})};
}

std::vector<std::int64_t> permutation(std::int64_t n, tl::random::Key key) {
  const std::vector<float> u = tl::random::uniform(key, {n}).to_vector<float>();
  std::vector<std::int64_t> order(static_cast<std::size_t>(n));
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&u](std::int64_t a, std::int64_t b) { return u[a] < u[b]; });
  return order;
}

Digits take_rows(const Digits& d, const std::vector<std::int64_t>& rows) {
  const tl::Tensor index = tl::tensor(rows, {static_cast<std::int64_t>(rows.size())});
  return {tl::take(d.images, index, 0), tl::take(d.labels, index, 0)};
}

Split hold_out(const Digits& all, double test_fraction, tl::random::Key key) {
  if (!(test_fraction > 0.0 && test_fraction < 1.0))
    throw tl::ValueError("digits: the held-out fraction must be in (0, 1), got " +
                         std::to_string(test_fraction));
  const std::vector<std::int64_t> order = permutation(all.size(), key);
  const auto n_test =
      static_cast<std::ptrdiff_t>(std::lround(test_fraction * static_cast<double>(all.size())));
  const auto cut = order.end() - n_test;
  return {take_rows(all, {order.begin(), cut}), take_rows(all, {cut, order.end()})};
}

}  // namespace digits
