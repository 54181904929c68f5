// Checks that bad input raises the right tl::Error subclass with a useful message.
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace tltest {

// f must throw E; the message must start with "tl::<op>:" and contain each of `also`.
template <class E, class F, class... Also>
void expect_error(F f, const std::string& op, const Also&... also) {
  try {
    f();
    ADD_FAILURE() << "no exception, expected one naming " << op;
  } catch (const E& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("tl::" + op + ":"), std::string::npos) << msg;
    for (const std::string& piece : std::vector<std::string>{std::string(also)...})
      EXPECT_NE(msg.find(piece), std::string::npos) << "missing '" << piece << "' in: " << msg;
  }
}

// f must throw E whose message contains every piece.
template <class E, class F>
void expect_error_with(F f, const std::vector<std::string>& pieces) {
  try {
    f();
    ADD_FAILURE() << "no exception, expected one naming " << pieces.at(0);
  } catch (const E& e) {
    const std::string msg = e.what();
    for (const auto& p : pieces) EXPECT_NE(msg.find(p), std::string::npos) << "missing '" << p << "' in: " << msg;
  }
}

}  // namespace tltest
