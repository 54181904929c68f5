#include "text.hpp"

#include <fstream>
#include <iterator>

namespace lm {

std::string read_text(const std::filesystem::path& path, std::size_t min_bytes) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw tl::ValueError("lm: cannot open the training text " + path.string());
  std::string text{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  if (text.size() < min_bytes)
    throw tl::ValueError("lm: the training text " + path.string() + " has " + std::to_string(text.size()) +
                         " bytes, fewer than one training window of " + std::to_string(min_bytes));
  return text;
}

tl::Tensor byte_tokens(const std::string& bytes) {
  std::vector<std::int32_t> ids;
  ids.reserve(bytes.size());
  for (char c : bytes) ids.push_back(static_cast<unsigned char>(c));
  return tl::tensor(ids, {1, static_cast<std::int64_t>(ids.size())});
}

nn::Batch sample_batch(const std::string& text, std::int64_t batch, std::int64_t seq, tl::random::Key key) {
  const auto last_start = static_cast<std::int64_t>(text.size()) - seq - 1;
  const std::vector<std::int32_t> starts =
      tl::random::randint(key, {batch}, 0, last_start + 1).to_vector<std::int32_t>();
  std::vector<std::int32_t> inputs, targets;
  for (std::int32_t s : starts)
    for (std::int64_t t = 0; t < seq; ++t) {
      inputs.push_back(static_cast<unsigned char>(text[std::size_t(s + t)]));
      targets.push_back(static_cast<unsigned char>(text[std::size_t(s + t + 1)]));
    }
  return {tl::tensor(inputs, {batch, seq}), tl::tensor(targets, {batch, seq})};
}

}  // namespace lm
