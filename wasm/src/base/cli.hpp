// The command line of the tools in wasm/tools: a loop over "--flag [value]" arguments that hands each flag to
// the tool, and turns a missing value, an unknown flag or a value the tool cannot parse into one usage error
// ("lookback-corpus: bad value for --seed: stoull", exit status 2); --help prints the usage (exit 0).
// Not a general parser: flags only, each with at most one value.
#pragma once
#include <cstdlib>
#include <iostream>
#include <stdexcept>
#include <string>

namespace lookback::cli {

struct Usage {
  const char* tool;  // "lookback-corpus"
  const char* text;  // the usage lines, ending in a newline

  [[noreturn]] void fail(const std::string& error) const {
    std::cerr << tool << ": " << error << "\n" << text;
    std::exit(2);
  }
  [[noreturn]] void help() const {
    std::cout << text;
    std::exit(0);
  }
};

// Calls on_flag(flag, value) for each flag in order; it returns false for a flag the tool does not know, and
// calls value() to take the flag's value. std::logic_error from it (std::stoi's) is a bad value.
template <class OnFlag>
void parse(const Usage& usage, int argc, char** argv, OnFlag&& on_flag) {
  for (int i = 1; i < argc; ++i) {
    const std::string flag = argv[i];
    if (flag == "--help" || flag == "-h") usage.help();
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) usage.fail("missing value after " + flag);
      return argv[++i];
    };
    bool known = false;
    try {
      known = on_flag(flag, value);
    } catch (const std::logic_error& e) {
      usage.fail("bad value for " + flag + ": " + e.what());
    }
    if (!known) usage.fail("unknown option " + flag);
  }
}

}  // namespace lookback::cli
