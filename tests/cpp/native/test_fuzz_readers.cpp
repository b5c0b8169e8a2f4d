// Fuzzing of the file readers: thousands of mutated safetensors files, config.json and tokenizer.json texts,
// llama2.c checkpoints and tokenizer .bin files, whole bundles of the transformer and of the window model. Every
// reader must either succeed or throw ModelError (a message, never a crash, hang or other exception); whatever
// loads must then run. Meant to be run in the AddressSanitizer + UBSan build (-DLOOKBACK_SANITIZE=ON) as well as
// the normal one. Native only.
// Inputs that once failed are kept at the end as regression cases.
#include <doctest/doctest.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "model/bpe.hpp"
#include "model/bundle.hpp"
#include "model/config_json.hpp"
#include "model/errors.hpp"
#include "model/hf_model.hpp"
#include "model/llama2c.hpp"
#include "model/safetensors.hpp"
#include "model/safetensors_sizes.hpp"
#include "model/session.hpp"
#include "model/sp_tokenizer.hpp"
#include "model/window_bundle.hpp"
#include "../hf_fixtures.hpp"
#include "../model_fixtures.hpp"

using namespace lookback;
using namespace lookback::testing;

namespace {

using Bytes = std::vector<std::uint8_t>;

// One random mutation: flip bits, overwrite with interesting bytes, cut, insert, duplicate or delete a run,
// or (for text) replace a digit run with a boundary number.
Bytes mutate(const Bytes& in, Rng& rng) {
  Bytes b = in;
  const int kinds = 8;
  const int rounds = 1 + int(rng.next() % 3);
  for (int r = 0; r < rounds; ++r) {
    const std::size_t n = b.size();
    const std::size_t at = n ? std::size_t(rng.next() % n) : 0;
    switch (rng.next() % kinds) {
      case 0:
        if (n) b[at] ^= std::uint8_t(1u << (rng.next() % 8));
        break;
      case 1: {
        static const std::uint8_t special[] = {0, 1, 0x7F, 0x80, 0xFF, '{', '}', '"', ',', ':', '[', ']', '-', '9', 'e'};
        if (n) b[at] = special[rng.next() % sizeof special];
        break;
      }
      case 2:
        b.resize(n ? std::size_t(rng.next() % n) : 0);
        break;
      case 3: {
        const std::size_t len = 1 + rng.next() % 16;
        for (std::size_t i = 0; i < len; ++i) b.insert(b.begin() + std::ptrdiff_t(std::min(at, b.size())), std::uint8_t(rng.next()));
        break;
      }
      case 4: {
        if (!n) break;
        const std::size_t len = std::min<std::size_t>(1 + rng.next() % 64, n - at);
        const Bytes run(b.begin() + std::ptrdiff_t(at), b.begin() + std::ptrdiff_t(at + len));
        b.insert(b.begin() + std::ptrdiff_t(rng.next() % (b.size() + 1)), run.begin(), run.end());
        break;
      }
      case 5: {
        if (!n) break;
        const std::size_t len = std::min<std::size_t>(1 + rng.next() % 64, n - at);
        b.erase(b.begin() + std::ptrdiff_t(at), b.begin() + std::ptrdiff_t(at + len));
        break;
      }
      case 6: {  // a 32-bit field set to a boundary value (headers, lengths)
        static const std::uint32_t values[] = {0, 1, 2, 3, 0x7FFFFFFF, 0x80000000, 0xFFFFFFFF, 0xFFFF, 0x10000, 512, 259};
        if (n >= 4) {
          const std::size_t p = (rng.next() % (n / 4)) * 4;
          const std::uint32_t v = values[rng.next() % (sizeof values / 4)];
          std::memcpy(&b[p], &v, 4);
        }
        break;
      }
      default: {  // a digit in text becomes a boundary number
        std::vector<std::size_t> digits;
        for (std::size_t i = 0; i < n; ++i)
          if (b[i] >= '0' && b[i] <= '9') digits.push_back(i);
        if (digits.empty()) break;
        static const char* numbers[] = {"0", "-1", "4294967296", "18446744073709551615", "1e400", "99999999999", "2.5", "-0"};
        const std::size_t p = digits[rng.next() % digits.size()];
        const std::string s = numbers[rng.next() % 8];
        b.erase(b.begin() + std::ptrdiff_t(p));
        b.insert(b.begin() + std::ptrdiff_t(p), s.begin(), s.end());
      }
    }
  }
  return b;
}

std::string text(const Bytes& b) { return std::string(b.begin(), b.end()); }
Bytes bytes(const std::string& s) { return Bytes(s.begin(), s.end()); }

// Runs f; true when it succeeded, false on ModelError; any other exception fails the test with the input kept.
bool survives(const char* what, std::size_t iteration, const std::function<void()>& f) {
  try {
    f();
    return true;
  } catch (const ModelError&) {
    return false;
  } catch (const std::exception& e) {
    const std::string message = std::string(what) + " iteration " + std::to_string(iteration) +
                                ": unexpected exception (not ModelError): " + e.what();
    FAIL_CHECK(message);
  } catch (...) {
    const std::string message = std::string(what) + " iteration " + std::to_string(iteration) + ": non-std exception";
    FAIL_CHECK(message);
  }
  return false;
}

void run_model(const std::shared_ptr<const Transformer>& m) {
  Session s(m);
  StepOptions o;
  o.attention = true;
  s.process({m->config().bos_id, 0, m->config().vocab_size - 1}, o);
}

ModelConfig fuzz_config() {
  auto c = small_config(8, 2, 2, 1, 4, 12, 258, 8, RopeLayout::half, true, Mlp::swiglu, false);
  return c;
}

// LOOKBACK_FUZZ_ITERATIONS and LOOKBACK_FUZZ_SEED run longer or different campaigns (default 3000, 0).
int env_int(const char* name, int fallback) {
  const char* v = std::getenv(name);
  return v && *v ? std::atoi(v) : fallback;
}
const int kIterations = env_int("LOOKBACK_FUZZ_ITERATIONS", 3000);
const std::uint64_t kSeed = std::uint64_t(env_int("LOOKBACK_FUZZ_SEED", 0)) * 1000;

}  // namespace

TEST_CASE("fuzz: safetensors files (F32 and F16) against their config") {
  const ModelConfig c = fuzz_config();
  const Weights w = random_weights(c, 61);
  const Bytes seeds[2] = {write_safetensors(w.named(), false, {{"format", "pt"}}), write_safetensors(w.named(), true)};
  Rng rng(kSeed + 62);
  int loaded = 0;
  for (int i = 0; i < kIterations; ++i) {
    const Bytes f = mutate(seeds[i % 2], rng);
    survives("safetensors header", std::size_t(i), [&] { read_safetensors_header(f.data(), f.size()); });
    if (survives("safetensors", std::size_t(i), [&] {
          auto m = std::make_shared<const Transformer>(read_safetensors(c, f.data(), f.size()));
          run_model(m);
        }))
      ++loaded;
  }
  MESSAGE("safetensors: " << kIterations << " mutated files, " << loaded << " still loadable and run");
}

TEST_CASE("fuzz: config.json texts") {
  const Bytes seed = bytes(config_to_json(fuzz_config()));
  Rng rng(kSeed + 63);
  int ok = 0;
  for (int i = 0; i < kIterations; ++i) {
    const Bytes f = mutate(seed, rng);
    if (survives("config.json", std::size_t(i), [&] {
          const ModelConfig c = config_from_json(text(f));
          (void)tensor_specs(c);
        }))
      ++ok;
  }
  MESSAGE("config.json: " << ok << " of " << kIterations << " mutated texts were still valid");
}

TEST_CASE("fuzz: llama2.c checkpoints, tied and separate") {
  auto c = small_config(8, 2, 2, 1, 4, 12, 260, 8, RopeLayout::adjacent, false, Mlp::swiglu, true);
  c.bos_id = 1, c.eos_id = 2;
  const Bytes tied = write_llama2c(random_weights(c, 64));
  c.tied_embeddings = false;
  const Bytes separate = write_llama2c(random_weights(c, 65));
  Rng rng(kSeed + 66);
  int loaded = 0;
  for (int i = 0; i < kIterations; ++i) {
    const Bytes f = mutate(i % 2 ? tied : separate, rng);
    if (survives("llama2.c checkpoint", std::size_t(i), [&] {
          auto m = std::make_shared<const Transformer>(read_llama2c(f.data(), f.size()));
          run_model(m);
        }))
      ++loaded;
  }
  MESSAGE("llama2.c: " << loaded << " of " << kIterations << " mutated checkpoints still loadable and run");
}

TEST_CASE("fuzz: llama2.c tokenizer files, then encoding and decoding with whatever loads") {
  std::vector<std::string> pieces = {"<unk>", "\n<s>\n", "\n</s>\n"};
  std::vector<float> scores(3, 0.0f);
  for (int b = 0; b < 256; ++b) {
    char buf[8];
    std::snprintf(buf, sizeof buf, "<0x%02X>", b);
    pieces.push_back(buf), scores.push_back(0.0f);
  }
  for (const char* p : {" ", "a", "b", " a", "ab", "é", " ab"}) pieces.push_back(p), scores.push_back(-float(pieces.size()));
  Bytes seed(4);
  const std::uint32_t max_len = 6;
  std::memcpy(seed.data(), &max_len, 4);
  for (std::size_t i = 0; i < pieces.size(); ++i) {
    const std::int32_t len = std::int32_t(pieces[i].size());
    const std::size_t at = seed.size();
    seed.resize(at + 8 + pieces[i].size());
    std::memcpy(&seed[at], &scores[i], 4);
    std::memcpy(&seed[at + 4], &len, 4);
    std::memcpy(&seed[at + 8], pieces[i].data(), pieces[i].size());
  }
  Rng rng(kSeed + 67);
  int loaded = 0;
  for (int i = 0; i < kIterations; ++i) {
    const Bytes f = mutate(seed, rng);
    if (survives("tokenizer .bin", std::size_t(i), [&] {
          const SpTokenizer t = SpTokenizer::from_bin(f.data(), f.size());
          const auto ids = t.encode("a bab\xC3\xA9 \xF0\x9F\x98\x80 ab\x80", true);
          (void)t.decode(ids);
          for (int id : ids) (void)t.token_text(id);
        }))
      ++loaded;
  }
  MESSAGE("tokenizer .bin: " << loaded << " of " << kIterations << " mutated files still loadable");
}

TEST_CASE("fuzz: bundles (tokenizer.json of the byte-level BPE with the other two files)") {
  const ModelConfig c = fuzz_config();
  const Bytes st = write_safetensors(random_weights(c, 68).named(), true);
  const std::string config = config_to_json(c);
  const Bytes tok = bytes(BpeTokenizer().to_json());
  Rng rng(kSeed + 69);
  int loaded = 0;
  for (int i = 0; i < kIterations; ++i) {
    const Bytes t = mutate(tok, rng);
    if (survives("tokenizer.json", std::size_t(i), [&] {
          const LoadedModel m = load_bundle(st.data(), st.size(), config, text(t));
          const auto ids = m.tokenizer->encode("hello wörld \xFF", true);
          (void)m.tokenizer->decode(ids);
          run_model(m.transformer);
        }))
      ++loaded;
  }
  MESSAGE("tokenizer.json: " << loaded << " of " << kIterations << " mutated texts still loadable");
}

// A mutation that nests: a run of '[' or '{"a":' (up to 100,000 deep) inserted at a random byte.
static Bytes nest(const Bytes& in, Rng& rng) {
  Bytes b = in;
  const std::string unit = rng.next() % 2 ? "[" : "{\"a\":";
  const std::size_t depth = 1 + rng.next() % (rng.next() % 4 ? 100 : 100000);
  std::string run;
  for (std::size_t i = 0; i < depth; ++i) run += unit;
  b.insert(b.begin() + std::ptrdiff_t(b.empty() ? 0 : rng.next() % b.size()), run.begin(), run.end());
  return b;
}

// A bundle's three files with the i-th in turn (weights, config.json, tokenizer.json) mutated or nested.
struct BundleFiles {
  Bytes weights, config, tokenizer;
};

static BundleFiles one_changed(const BundleFiles& in, int i, Rng& rng) {
  BundleFiles b = in;
  Bytes& f = i % 3 == 0 ? b.weights : i % 3 == 1 ? b.config : b.tokenizer;
  f = rng.next() % 3 ? mutate(f, rng) : nest(f, rng);
  return b;
}

TEST_CASE("fuzz: whole bundles through load_bundle (depth and 64-bit size checks first), deep nesting included") {
  const ModelConfig c = fuzz_config();
  const BundleFiles files{write_safetensors(random_weights(c, 70).named(), false), bytes(config_to_json(c)),
                          bytes(BpeTokenizer().to_json())};
  Rng rng(kSeed + 71);
  int loaded = 0;
  for (int i = 0; i < kIterations; ++i) {
    const BundleFiles b = one_changed(files, i, rng);
    const Bytes& f = b.weights;
    survives("safetensors sizes", std::size_t(i), [&] { check_safetensors_sizes(f.data(), f.size()); });
    if (survives("bundle", std::size_t(i), [&] {
          const LoadedModel m = load_bundle(f.data(), f.size(), text(b.config), text(b.tokenizer));
          run_model(m.transformer);
        }))
      ++loaded;
  }
  MESSAGE("bundles: " << kIterations << " with one file mutated or nested, " << loaded << " still loadable and run");
}

// Per-input budgets of the Hugging Face campaign: inputs mutated past kMaxInputBytes are cut back to it, and no
// input may take longer than LOOKBACK_FUZZ_BUDGET_MS (default 2,000 ms; a sanitizer build is several times slower
// than a release one) to load, encode, decode and run.
constexpr std::size_t kMaxInputBytes = std::size_t(1) << 20;
const int kBudgetMs = env_int("LOOKBACK_FUZZ_BUDGET_MS", 2000);

TEST_CASE("fuzz: Hugging Face Llama folders (config.json, tokenizer.json, weights) with size and time budgets per input") {
  const ModelConfig c = small_config(8, 2, 2, 1, 4, 12, 300, 8, RopeLayout::half, false, Mlp::swiglu, false);
  const Weights weights = random_weights(c, 72);  // named() views into it: it must outlive them
  std::vector<NamedTensor> named = weights.named();
  for (NamedTensor& t : named) t.name = hf_llama_tensor_name(t.name);
  const std::string config =
      R"({"architectures":["LlamaForCausalLM"],"model_type":"llama","hidden_size":8,"num_hidden_layers":2,)"
      R"("num_attention_heads":2,"num_key_value_heads":1,"head_dim":4,"intermediate_size":12,"vocab_size":300,)"
      R"("max_position_embeddings":4096,"rms_norm_eps":1e-5,"rope_theta":10000,"tie_word_embeddings":false,)"
      R"("bos_token_id":259,"eos_token_id":[260],"hidden_act":"silu","rope_scaling":null})";
  const BundleFiles files{write_safetensors(named, true), bytes(config), bytes(testing::tokenizer_json())};
  // the unmutated folder loads and runs (else every case below would only test refusals)
  REQUIRE_NOTHROW(run_model(load_hf_model(files.weights.data(), files.weights.size(), config, text(files.tokenizer), WeightFormat::f32).transformer));
  Rng rng(kSeed + 73);
  int loaded[3] = {0, 0, 0}, cut = 0;
  double slowest_ms = 0;
  for (int i = 0; i < kIterations; ++i) {
    BundleFiles b = one_changed(files, i, rng);
    for (Bytes* f : {&b.weights, &b.config, &b.tokenizer})
      if (f->size() > kMaxInputBytes) f->resize(kMaxInputBytes), ++cut;
    const auto start = std::chrono::steady_clock::now();
    if (survives("Hugging Face folder", std::size_t(i), [&] {
          const LoadedModel m = load_hf_model(b.weights.data(), b.weights.size(), text(b.config), text(b.tokenizer), WeightFormat::f32);
          const auto ids = m.tokenizer->encode("the cat\xFF w\xC3\xB6rld", true);
          (void)m.tokenizer->decode(ids);
          run_model(m.transformer);
        }))
      ++loaded[i % 3];
    const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    slowest_ms = std::max(slowest_ms, ms);
    if (ms > kBudgetMs) FAIL_CHECK("Hugging Face folder iteration " << i << " took " << ms << " ms (budget " << kBudgetMs << " ms)");
  }
  MESSAGE("Hugging Face folders: " << kIterations << " with one file mutated or nested (" << cut << " cut to "
          << kMaxInputBytes << " bytes); still loadable and run: weights " << loaded[0] << ", config.json " << loaded[1]
          << ", tokenizer.json " << loaded[2] << "; slowest input " << slowest_ms << " ms");
}

TEST_CASE("fuzz: byte-level BPE tokenizer.json whose merges double a token, near the bound on token length") {
  // ten merges, each doubling the last ("aa" ... 1,024 bytes, ids 258..267): mutations push them past the bound
  const ModelConfig c = small_config(8, 1, 2, 1, 4, 12, 268, 8, RopeLayout::half, false, Mlp::gelu, true);
  const Bytes st = write_safetensors(random_weights(c, 74).named(), false);
  std::vector<std::pair<int, int>> merges = {{'a' + 2, 'a' + 2}};
  for (int m = 0; m < 9; ++m) merges.emplace_back(258 + m, 258 + m);
  const Bytes tok = bytes(BpeTokenizer(merges).to_json());
  Rng rng(kSeed + 75);
  int loaded = 0;
  double slowest_ms = 0;
  for (int i = 0; i < kIterations; ++i) {
    Bytes t = mutate(tok, rng);
    if (t.size() > kMaxInputBytes) t.resize(kMaxInputBytes);
    const auto start = std::chrono::steady_clock::now();
    if (survives("doubling tokenizer.json", std::size_t(i), [&] {
          const LoadedModel m = load_bundle(st.data(), st.size(), config_to_json(c), text(t));
          const auto ids = m.tokenizer->encode(std::string(3000, 'a'), true);
          (void)m.tokenizer->decode(ids);
          for (int id = 0; id < c.vocab_size; ++id) REQUIRE(m.tokenizer->token_text(id).size() <= 4 * BpeTokenizer::kMaxTokenBytes);
        }))
      ++loaded;
    const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    slowest_ms = std::max(slowest_ms, ms);
    if (ms > kBudgetMs) FAIL_CHECK("doubling tokenizer.json iteration " << i << " took " << ms << " ms (budget " << kBudgetMs << " ms)");
  }
  MESSAGE("doubling tokenizer.json: " << loaded << " of " << kIterations << " mutated texts still loadable; slowest input " << slowest_ms << " ms");
}

TEST_CASE("fuzz: window model bundles through load_window_bundle (sizes checked first), deep nesting included") {
  const int W = 3, E = 4, N = 5, V = 258;
  Rng seed_rng(72);
  const std::vector<float> emb = seed_rng.vec(V * E), hw = seed_rng.vec(N * W * E), hb = seed_rng.vec(N),
                           ow = seed_rng.vec(V * N), ob = seed_rng.vec(V);
  const BundleFiles files{
      write_safetensors({{"embed.weight", {V, E}, emb.data()}, {"hidden.weight", {N, W * E}, hw.data()},
                         {"hidden.bias", {N}, hb.data()}, {"out.weight", {V, N}, ow.data()}, {"out.bias", {V}, ob.data()}},
                        false),
      bytes(R"({"arch":"window","window":3,"embed_dim":4,"hidden_dim":5,"vocab_size":258,"bos_id":0,"eos_id":1})"),
      bytes(BpeTokenizer().to_json())};
  Rng rng(kSeed + 73);
  int loaded = 0;
  for (int i = 0; i < kIterations; ++i) {
    const BundleFiles f = one_changed(files, i, rng);
    if (survives("window bundle", std::size_t(i), [&] {
          const WindowBundle w = load_window_bundle(f.weights.data(), f.weights.size(), text(f.config), text(f.tokenizer));
          const auto ids = w.tokenizer->encode("hello w\xC3\xB6rld \xFF", true);
          (void)w.tokenizer->decode(ids);
          (void)w.model.logits(ids);
        }))
      ++loaded;
  }
  MESSAGE("window bundles: " << kIterations << " with one file mutated or nested, " << loaded << " still loadable and run");
}

TEST_CASE("fuzz regressions: inputs that once escaped as the wrong exception") {
  // a number beyond double range made nlohmann throw out_of_range, not a parse error
  std::string config = config_to_json(fuzz_config());
  config.replace(config.find("\"dim\": 8"), 8, "\"dim\": 1e400");
  CHECK_THROWS_WITH_AS(config_from_json(config), doctest::Contains("config.json is not well-formed JSON"), ModelError);
}
