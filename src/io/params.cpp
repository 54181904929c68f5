#include "tlaloc/nn/params.hpp"

#include <fmt/format.h>

namespace tlaloc::nn {

Params::Params(std::initializer_list<Entry> entries) {
  for (const Entry& e : entries) set(e.first, e.second);
}

Params Params::from(const std::vector<std::string>& names, const std::vector<Tensor>& tensors) {
  if (names.size() != tensors.size())
    throw ValueError(fmt::format("tl::nn::Params: {} names for {} tensors", names.size(), tensors.size()));
  Params p;
  for (std::size_t i = 0; i < names.size(); ++i) p.set(names[i], tensors[i]);
  return p;
}

void Params::set(std::string name, Tensor t) {
  for (Entry& e : entries_)
    if (e.first == name) {
      e.second = std::move(t);
      return;
    }
  entries_.emplace_back(std::move(name), std::move(t));
}

bool Params::contains(std::string_view name) const {
  for (const Entry& e : entries_)
    if (e.first == name) return true;
  return false;
}

const Tensor& Params::at(std::string_view name) const { return entries_[index(name)].second; }

std::size_t Params::index(std::string_view name) const {
  for (std::size_t i = 0; i < entries_.size(); ++i)
    if (entries_[i].first == name) return i;
  throw ValueError(fmt::format("tl::nn::Params: no parameter named '{}'", name));
}

Params Params::sub(std::string_view prefix) const {
  Params p;
  const std::string head = std::string(prefix) + ".";
  for (const Entry& e : entries_)
    if (e.first.rfind(head, 0) == 0) p.entries_.emplace_back(e.first.substr(head.size()), e.second);
  return p;
}

Params Params::prefixed(std::string_view prefix) const {
  Params p;
  for (const Entry& e : entries_) p.entries_.emplace_back(fmt::format("{}.{}", prefix, e.first), e.second);
  return p;
}

std::vector<std::string> Params::names() const {
  std::vector<std::string> n;
  for (const Entry& e : entries_) n.push_back(e.first);
  return n;
}

std::vector<Tensor> Params::tensors() const {
  std::vector<Tensor> t;
  for (const Entry& e : entries_) t.push_back(e.second);
  return t;
}

Params Params::with_tensors(const std::vector<Tensor>& tensors) const {
  return from(names(), tensors);
}

}  // namespace tlaloc::nn
