// The shapes lookback-train --config takes (sprout_config): the full config with named sizes changed, and each
// malformed shape refused naming what is wrong. Not the training itself (test_train.cpp).
#include <doctest/doctest.h>

#include <stdexcept>
#include <string>

#include "train/sprout_train.hpp"

using namespace lookback;
using lookback::train::sprout_config;

namespace {
std::string refusal(const std::string& shape) {
  try {
    sprout_config(shape, 3072);
  } catch (const std::runtime_error& e) {
    return e.what();
  }
  return "(not refused)";
}
}  // namespace

TEST_CASE("a shape changes the named sizes of the full config and keeps the rest") {
  const ModelConfig full = sprout_config("full", 3072);
  const ModelConfig c = sprout_config("layers=5,hidden=384", 3072);
  CHECK(c.n_layers == 5);
  CHECK(c.hidden_dim == 384);
  CHECK(c.dim == full.dim);
  CHECK(c.n_heads == full.n_heads);
  CHECK(c.head_dim == full.head_dim);
  CHECK(c.max_seq_len == full.max_seq_len);
  CHECK(c.vocab_size == 3072);
  const ModelConfig d = sprout_config("dim=160,heads=5,context=128", 512);
  CHECK(d.dim == 160);
  CHECK(d.n_heads == 5);
  CHECK(d.n_kv_heads == 5);
  CHECK(d.head_dim == 32);
  CHECK(d.max_seq_len == 128);
  CHECK(d.n_layers == full.n_layers);
  CHECK(sprout_config("", 3072).dim == full.dim);
}

TEST_CASE("a malformed shape is refused naming the part that is wrong") {
  CHECK(refusal("dim=100,heads=6").find("dim must be a multiple of heads") != std::string::npos);
  CHECK(refusal("layers=x").find("'x' is not a positive whole number") != std::string::npos);
  CHECK(refusal("layers=0").find("'0' is not a positive whole number") != std::string::npos);
  CHECK(refusal("layers=5x").find("'5x' is not a positive whole number") != std::string::npos);
  CHECK(refusal("depth=3").find("unknown size 'depth'") != std::string::npos);
  CHECK(refusal("layers").find("'layers' is not key=value") != std::string::npos);
  CHECK(refusal("depth=3").find("config 'depth=3': ") == 0);
}
