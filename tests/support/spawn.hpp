// Starting a program of the tests as a child process with its standard output on a
// pipe (the compile cache's and the crash harness's children).
#pragma once

#include <spawn.h>
#include <unistd.h>

#include <algorithm>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

extern char** environ;

namespace tltest {

struct Child {
  pid_t pid = -1;
  int out_fd = -1;  // the child's standard output, to read
};

// argv[0] is the program's path. The child gets this process's environment with
// `overrides` ("NAME=value") in place of the same names.
inline Child spawn_reading_stdout(std::vector<std::string> argv,
                                  const std::vector<std::string>& overrides = {}) {
  const auto name_of = [](std::string_view entry) { return entry.substr(0, entry.find('=') + 1); };
  std::vector<std::string> env(overrides);
  for (char** e = environ; *e != nullptr; ++e)
    if (std::none_of(overrides.begin(), overrides.end(),
                     [&](const std::string& o) { return name_of(o) == name_of(*e); }))
      env.emplace_back(*e);
  int fds[2];
  if (::pipe(fds) != 0) throw std::runtime_error("pipe");
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, fds[1], STDOUT_FILENO);
  posix_spawn_file_actions_addclose(&actions, fds[0]);
  std::vector<char*> args, vars;
  for (std::string& a : argv) args.push_back(a.data());
  for (std::string& v : env) vars.push_back(v.data());
  args.push_back(nullptr);
  vars.push_back(nullptr);
  Child c;
  const int rc = posix_spawn(&c.pid, argv.at(0).c_str(), &actions, nullptr, args.data(), vars.data());
  posix_spawn_file_actions_destroy(&actions);
  ::close(fds[1]);
  if (rc != 0) {
    ::close(fds[0]);
    throw std::runtime_error("posix_spawn " + argv.at(0));
  }
  c.out_fd = fds[0];
  return c;
}

}  // namespace tltest
