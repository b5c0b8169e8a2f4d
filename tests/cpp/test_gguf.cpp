// Tests of the GGUF reader (wasm/src/model/gguf*.cpp, ggml_types.cpp): each block decoder against blocks computed
// by hand from ggml's layouts, random-weight llama models written by the test writer (gguf_writer.hpp) in every
// type giving the logits of the same weights run directly, the llama tokenizer from the metadata, the loader's
// detection, refusals of damaged or unsupported files, and files read in parts (a source, as a page's File or a
// file on disk is read) with the memory a model needs checked first.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstring>
#include <memory>
#include <string>
#include <variant>

#include "gguf_writer.hpp"
#include "lookback/matvec.hpp"
#include "model/ggml_types.hpp"
#include "model/gguf.hpp"
#include "model/gguf_model.hpp"
#include "model/matrices.hpp"
#include "model/load.hpp"
#include "model/q4_ggml.hpp"
#include "model/session.hpp"
#include "model/sp_tokenizer.hpp"
#include "model_fixtures.hpp"

using namespace lookback;
using namespace lookback::testing;

namespace {

// <unk>, <s>, </s>, the 256 byte pieces, then the extra pieces (spaces as "▁") with their scores.
void vocabulary(const std::vector<std::pair<std::string, float>>& extra, int size, std::vector<std::string>& pieces,
                std::vector<float>& scores) {
  pieces = {"<unk>", "<s>", "</s>"};
  const char* hex = "0123456789ABCDEF";
  for (int b = 0; b < 256; ++b) pieces.push_back(std::string("<0x") + hex[b >> 4] + hex[b & 15] + ">");
  scores.assign(pieces.size(), 0.0f);
  for (const auto& [p, s] : extra) pieces.push_back(p), scores.push_back(s);
  for (int i = int(pieces.size()); i < size; ++i) pieces.push_back("x" + std::to_string(i)), scores.push_back(-100.0f - float(i));
}

ModelConfig gguf_test_config(int dim, int hidden) {
  ModelConfig c = small_config(dim, 2, 4, 2, dim / 4, hidden, 300, 24, RopeLayout::adjacent, false, Mlp::swiglu, true);
  c.bos_id = 1, c.eos_id = 2;
  return c;
}

std::vector<float> logits_of(std::shared_ptr<const Transformer> m, const std::vector<int>& ids) {
  Session s(std::move(m));
  s.process(ids);
  return s.all_logits();
}

LoadedModel load(const std::vector<std::uint8_t>& bytes, Storage f = WeightFormat::f32) {
  ModelFiles files;
  files.weights = bytes.data();
  files.weights_size = bytes.size();
  AnyModel m = load_model(files, f);
  REQUIRE(std::holds_alternative<LoadedModel>(m));
  return std::get<LoadedModel>(m);
}

// The tensor's bytes replaced by random blocks of `type` with small finite scales (d, and dmin for Q4_K/Q5_K,
// 2^-9 · (1 + a little) in each block); its decoded values into `decoded`.
void random_blocks(GgufWriter::T& tensor, std::uint32_t type, Rng& rng, float* decoded) {
  const GgmlType& t = *ggml_type(type);
  const std::size_t n = std::size_t(tensor.dims[0] * tensor.dims[1]);
  tensor.type = type;
  tensor.bytes.resize(n / std::size_t(t.block) * std::size_t(t.block_bytes));
  for (auto& byte : tensor.bytes) byte = std::uint8_t(rng.next());
  const std::size_t d_at = type == 14 ? 208 : 0;
  for (std::size_t b = 0; b < tensor.bytes.size(); b += std::size_t(t.block_bytes)) {
    tensor.bytes[b + d_at] = std::uint8_t(rng.next()), tensor.bytes[b + d_at + 1] = 0x18;
    if (type == 12 || type == 13) tensor.bytes[b + 2] = std::uint8_t(rng.next()), tensor.bytes[b + 3] = 0x18;
  }
  dequantize_ggml(t, tensor.bytes.data(), n, decoded);
}

}  // namespace

TEST_CASE("ggml block decoders give the values computed by hand from each layout") {
  SUBCASE("Q8_0: d · q") {
    std::vector<std::uint8_t> b(34, 0);
    b[0] = 0x00, b[1] = 0x38;  // d = 0.5
    b[2] = 0x80, b[3] = 0xFF, b[5] = 1, b[6] = 127;
    float y[32];
    dequantize_q8_0_block(b.data(), y);
    CHECK(y[0] == -64.0f);
    CHECK(y[1] == -0.5f);
    CHECK(y[2] == 0.0f);
    CHECK(y[3] == 0.5f);
    CHECK(y[4] == 63.5f);
  }
  SUBCASE("Q4_0: d · (nibble - 8), low nibbles first") {
    std::vector<std::uint8_t> b(18, 0x88);
    b[0] = 0x00, b[1] = 0x40;  // d = 2
    b[2] = 0x0F, b[3] = 0x98;
    float y[32];
    dequantize_q4_0_block(b.data(), y);
    CHECK(y[0] == 14.0f);
    CHECK(y[16] == -16.0f);
    CHECK(y[1] == 0.0f);
    CHECK(y[17] == 2.0f);
    CHECK(y[2] == 0.0f);
  }
  SUBCASE("Q4_K: d · scale · nibble - dmin · min, with the 6-bit scales packed in 12 bytes") {
    std::vector<std::uint8_t> b(144, 0);
    b[0] = 0x00, b[1] = 0x3C;  // d = 1
    b[2] = 0x00, b[3] = 0x38;  // dmin = 0.5
    std::uint8_t* sc = b.data() + 4;
    sc[0] = 0x43, sc[4] = 0xC2, sc[1] = 0x05, sc[5] = 0x01, sc[8] = 0x21;  // sub-blocks 0 (3, 2), 1 (5, 1), 4 (17, 50)
    std::uint8_t* qs = b.data() + 16;
    qs[0] = 0x7A, qs[64] = 0x03;
    float y[256];
    dequantize_q4_k_block(b.data(), y);
    CHECK(y[0] == 3 * 10 - 0.5f * 2);
    CHECK(y[32] == 5 * 7 - 0.5f * 1);
    CHECK(y[128] == 17 * 3 - 0.5f * 50);
    CHECK(y[1] == -1.0f);  // nibble 0 of sub-block 0: -dmin · 2
  }
  SUBCASE("Q5_K: the fifth bit from qh, two bits per 64 values") {
    std::vector<std::uint8_t> b(176, 0);
    b[0] = 0x00, b[1] = 0x3C;  // d = 1
    b[2] = 0x00, b[3] = 0x38;  // dmin = 0.5
    std::uint8_t* sc = b.data() + 4;
    sc[0] = 0x03, sc[4] = 0x02, sc[1] = 0x05, sc[5] = 0x01, sc[2] = 0x02, sc[6] = 0x04;
    std::uint8_t* qh = b.data() + 16;
    std::uint8_t* qs = b.data() + 48;
    qh[0] = 0x03, qh[1] = 0x04, qs[0] = 0x7A, qs[33] = 0x01;
    float y[256];
    dequantize_q5_k_block(b.data(), y);
    CHECK(y[0] == 3 * (10 + 16) - 0.5f * 2);
    CHECK(y[32] == 5 * (7 + 16) - 0.5f * 1);
    CHECK(y[65] == 2 * (1 + 16) - 0.5f * 4);
    CHECK(y[1] == -1.0f);
  }
  SUBCASE("Q6_K: four low bits from ql, two high from qh, minus 32, times d and an 8-bit scale per 16") {
    std::vector<std::uint8_t> b(210, 0);
    std::uint8_t* ql = b.data();
    std::uint8_t* qh = b.data() + 128;
    auto* sc = reinterpret_cast<std::int8_t*>(b.data() + 192);
    b[208] = 0x00, b[209] = 0x38;  // d = 0.5
    sc[0] = 4, sc[2] = -2, sc[4] = 3, sc[6] = 1, sc[8] = 5, sc[1] = 7;
    ql[0] = 0x21, ql[32] = 0x43, qh[0] = 0xE4, ql[64] = 0x0F, qh[32] = 0x03, ql[16] = 0x05;
    float y[256];
    dequantize_q6_k_block(b.data(), y);
    CHECK(y[0] == 0.5f * 4 * -31);
    CHECK(y[32] == 0.5f * -2 * -13);
    CHECK(y[64] == 0.5f * 3 * 2);
    CHECK(y[96] == 0.5f * 1 * 20);
    CHECK(y[128] == 0.5f * 5 * 31);
    CHECK(y[16] == 0.5f * 7 * -27);
  }
}

TEST_CASE("a llama GGUF in F32 runs as its weights do; F16, BF16 and Q8_0 as their decoded weights") {
  const ModelConfig c = gguf_test_config(64, 96);
  const Weights w = random_weights(c, 11);
  std::vector<std::string> pieces;
  std::vector<float> scores;
  vocabulary({}, c.vocab_size, pieces, scores);
  Rng rng(5);
  const std::vector<int> ids = random_ids(rng, 12, c.vocab_size, c.bos_id);
  for (std::uint32_t type : {0u, 1u, 30u, 8u}) {
    CAPTURE(ggml_type_name(type));
    const std::vector<std::uint8_t> file = llama_gguf(w, pieces, scores, type).bytes();
    const LoadedModel m = load(file);
    const ModelConfig& got = m.transformer->config();
    CHECK(got.rope_layout == RopeLayout::adjacent);
    CHECK(got.n_kv_heads == 2);
    CHECK(got.tied_embeddings);
    Weights expected = w;  // the same weights as the file's type holds them
    for (const TensorSpec& s : w.specs())
      if (s.shape.size() == 2) {
        const auto enc = encode_ggml(w.tensor(s.name), s.size(), type);
        dequantize_ggml(*ggml_type(type), enc.data(), s.size(), expected.tensor(s.name));
      }
    const auto want = logits_of(std::make_shared<const Transformer>(std::move(expected)), ids);
    const auto have = logits_of(m.transformer, ids);
    REQUIRE(want.size() == have.size());
    for (std::size_t i = 0; i < want.size(); ++i) REQUIRE(have[i] == want[i]);
    if (type == 0) CHECK(have == logits_of(std::make_shared<const Transformer>(Weights(w)), ids));
  }
}

TEST_CASE("Q4_0, Q4_K, Q5_K and Q6_K matrices run as their decoded weights, also stored as q8 and q4") {
  const ModelConfig c = gguf_test_config(256, 256);
  const Weights w = random_weights(c, 12);
  std::vector<std::string> pieces;
  std::vector<float> scores;
  vocabulary({}, c.vocab_size, pieces, scores);
  Rng rng(6);
  const std::vector<int> ids = random_ids(rng, 8, c.vocab_size, c.bos_id);
  for (std::uint32_t type : {2u, 12u, 13u, 14u}) {
    CAPTURE(ggml_type_name(type));
    GgufWriter g = llama_gguf(w, pieces, scores, 0);
    Weights expected = w;
    for (GgufWriter::T& tensor : g.tensors)
      if (tensor.dims.size() == 2) random_blocks(tensor, type, rng, expected.tensor(gguf_to_lookback_names(tensor.name, c)[0]));
    const std::vector<std::uint8_t> file = g.bytes();
    const auto have = logits_of(load(file).transformer, ids);
    const auto want = logits_of(std::make_shared<const Transformer>(Weights(expected)), ids);
    for (std::size_t i = 0; i < want.size(); ++i) REQUIRE(have[i] == want[i]);
    const LoadedModel held = load(file, std::nullopt);  // the file's own storage: q8 for every quantised type
    CHECK(held.transformer->matrices().format() == WeightFormat::q8);
    const LoadedModel q4 = load(file, WeightFormat::q4);
    if (type == 2 || type == 12) {
      // 4-bit blocks go into q4 as they are: every matrix gives back exactly the file's decoded weights
      const Matrices& m = q4.transformer->matrices();
      auto same = [&](const Matrix& M, const float* decoded) {
        std::vector<float> back(std::size_t(M.N) * M.K);
        dequantize_q4(M.q4, M.N, M.K, back.data());
        for (std::size_t i = 0; i < back.size(); ++i) REQUIRE(back[i] == decoded[i]);
      };
      for (int l = 0; l < c.n_layers; ++l) {
        const LayerView v = expected.layer(l);
        same(m.layer(l).wqkv, v.wqkv), same(m.layer(l).wo, v.wo), same(m.layer(l).w13, v.w13), same(m.layer(l).w2, v.w2);
      }
      same(m.classifier(), expected.classifier());
    } else {
      const auto want_q4 = logits_of(std::make_shared<const Transformer>(Weights(expected), WeightFormat::q4), ids);
      const auto got_q4 = logits_of(q4.transformer, ids);
      for (std::size_t i = 0; i < want.size(); ++i) REQUIRE(got_q4[i] == want_q4[i]);
    }
    const auto q8 = logits_of(load(file, WeightFormat::q8).transformer, ids);
    const auto want_q8 = logits_of(std::make_shared<const Transformer>(std::move(expected), WeightFormat::q8), ids);
    for (std::size_t i = 0; i < want.size(); ++i) REQUIRE(q8[i] == want_q8[i]);
  }
}

TEST_CASE("a GGUF's matrices are held as q8 when one is quantised, f16 when F16, else f32, unless the caller chooses") {
  const ModelConfig c = gguf_test_config(256, 256);
  const Weights w = random_weights(c, 13);
  std::vector<std::string> pieces;
  std::vector<float> scores;
  vocabulary({}, c.vocab_size, pieces, scores);
  Rng rng(7);
  const std::vector<int> ids = random_ids(rng, 8, c.vocab_size, c.bos_id);
  const std::pair<std::uint32_t, WeightFormat> cases[] = {
      {0, WeightFormat::f32}, {1, WeightFormat::f16}, {30, WeightFormat::f32}, {8, WeightFormat::q8},
      {2, WeightFormat::q8},  {12, WeightFormat::q8}, {13, WeightFormat::q8},  {14, WeightFormat::q8}};
  for (const auto& one : cases) {
    const std::uint32_t type = one.first;  // (not a structured binding: CAPTURE's lambda cannot name one in C++17)
    const WeightFormat held = one.second;
    CAPTURE(ggml_type_name(type));
    // the matrices in F32 but one (a layer's ffn_down) in the type, as mixed files (Q4_K_M) hold them
    GgufWriter g = llama_gguf(w, pieces, scores, 0);
    Weights expected = w;
    for (GgufWriter::T& tensor : g.tensors) {
      if (tensor.name != "blk.1.ffn_down.weight") continue;
      float* decoded = expected.tensor(gguf_to_lookback_names(tensor.name, c)[0]);
      const std::size_t n = std::size_t(tensor.dims[0] * tensor.dims[1]);
      if (ggml_type(type)->block > 1 && type != 8) {
        random_blocks(tensor, type, rng, decoded);
      } else {
        tensor.type = type;
        tensor.bytes = encode_ggml(decoded, n, type);
        dequantize_ggml(*ggml_type(type), tensor.bytes.data(), n, decoded);
      }
    }
    const std::vector<std::uint8_t> file = g.bytes();
    CHECK(gguf_storage(read_gguf(file.data(), file.size())) == held);
    const LoadedModel m = load(file, std::nullopt);
    CHECK(m.transformer->matrices().format() == held);
    const auto want = logits_of(std::make_shared<const Transformer>(Weights(expected), held), ids);
    CHECK(logits_of(m.transformer, ids) == want);
    CHECK(load(file, WeightFormat::f32).transformer->matrices().format() == WeightFormat::f32);
    CHECK(load(file, WeightFormat::f16).transformer->matrices().format() == WeightFormat::f16);
  }
}

TEST_CASE("the llama tokenizer of a GGUF encodes as the same sentencepiece vocabulary with spaces") {
  const ModelConfig c = gguf_test_config(64, 96);
  std::vector<std::string> pieces, spaced;
  std::vector<float> scores;
  vocabulary({{"\xE2\x96\x81", -1}, {"a", -1}, {"b", -1}, {"ab", -5}, {"\xE2\x96\x81" "a", -3}, {"\xE2\x96\x81" "ab", -2}, {"é", -1}},
             c.vocab_size, pieces, scores);
  for (const std::string& p : pieces) {
    std::string s = p;
    for (std::size_t at; (at = s.find("\xE2\x96\x81")) != std::string::npos;) s.replace(at, 3, " ");
    spaced.push_back(s);
  }
  const SpTokenizer reference(spaced, scores);
  const LoadedModel m = load(llama_gguf(random_weights(c, 1), pieces, scores, 0).bytes());
  for (const std::string text : {"ab ab", "a b é ab", "zz\xF0\x9F\x98\x80", ""}) {
    CAPTURE(text);
    CHECK(m.tokenizer->encode(text) == reference.encode(text));
    CHECK(m.tokenizer->decode(m.tokenizer->encode(text)) == text);
  }
  CHECK(m.tokenizer->encode("ab ab") == std::vector<int>{1, 259 + 5, 259 + 5});
  CHECK(m.tokenizer->bos_id() == 1);
  CHECK(m.tokenizer->eos_id() == 2);
}

TEST_CASE("GGUF tensor names map to lookback's: gpt2's attn_qkv to q, k and v; ffn_up to w3 beside a gate, w1 alone") {
  using V = std::vector<std::string>;
  ModelConfig llama = gguf_test_config(64, 96), gpt2 = llama;
  gpt2.mlp = Mlp::gelu_tanh;
  CHECK(gguf_to_lookback_names("blk.3.attn_q.weight", llama) == V{"layers.3.attention.wq.weight"});
  CHECK(gguf_to_lookback_names("blk.0.ffn_up.weight", llama) == V{"layers.0.feed_forward.w3.weight"});
  CHECK(gguf_to_lookback_names("blk.0.ffn_up.weight", gpt2) == V{"layers.0.feed_forward.w1.weight"});
  CHECK(gguf_to_lookback_names("blk.0.ffn_up.bias", gpt2) == V{"layers.0.feed_forward.w1.bias"});
  CHECK(gguf_to_lookback_names("blk.12.attn_qkv.bias", gpt2) ==
        V{"layers.12.attention.wq.bias", "layers.12.attention.wk.bias", "layers.12.attention.wv.bias"});
  CHECK(gguf_to_lookback_names("blk.1.attn_k_norm.weight", llama) == V{"layers.1.attention.k_norm.weight"});
  CHECK(gguf_to_lookback_names("position_embd.weight", gpt2) == V{"pos_embeddings.weight"});
  CHECK(gguf_to_lookback_names("output_norm.bias", gpt2) == V{"norm.bias"});
  for (const char* none : {"blk.x.attn_q.weight", "blk..attn_q.weight", "blk.1", "blk.1.attn_z.weight", "rope_freqs.weight"})
    CHECK(gguf_to_lookback_names(none, llama).empty());
}

TEST_CASE("GGUF metadata of every type, arrays, alignment and the data offset are read as written") {
  GgufWriter g;
  g.alignment = 64;
  g.u32("general.alignment", 64);
  g.f32("x.f", 1.5f);
  g.str("x.s", "héllo");
  g.ints("x.a", {-1, 2, 3});
  g.key("x.b", 7), g.kv.push_back(1);
  g.key("x.i64", 11), GgufWriter::put<std::int64_t>(g.kv, -5);
  g.key("x.f64", 12), GgufWriter::put<double>(g.kv, 0.25);
  g.tensor("t", {32, 2}, 8, std::vector<std::uint8_t>(68, 0));
  const auto bytes = g.bytes();
  const GgufFile f = read_gguf(bytes.data(), bytes.size());
  CHECK(f.version == 3);
  CHECK(f.alignment == 64);
  CHECK(f.data_offset % 64 == 0);
  CHECK(f.find("x.f")->value.get<float>() == 1.5f);
  CHECK(f.find("x.s")->value == "héllo");
  CHECK(f.find("x.a")->value == nlohmann::json({-1, 2, 3}));
  CHECK(f.find("x.a")->element == GgufType::i32);
  CHECK(f.find("x.b")->value == true);
  CHECK(f.find("x.i64")->value == -5);
  CHECK(f.find("x.f64")->value == 0.25);
  CHECK(f.tensors.at(0).bytes == 68);
  CHECK(f.tensors.at(0).data == bytes.data() + f.data_offset);
}

TEST_CASE("damaged and unsupported GGUF files are refused with what is wrong") {
  const ModelConfig c = gguf_test_config(8, 16);
  std::vector<std::string> pieces;
  std::vector<float> scores;
  vocabulary({}, c.vocab_size, pieces, scores);
  const GgufWriter good = llama_gguf(random_weights(c, 2), pieces, scores, 0);
  const std::vector<std::uint8_t> bytes = good.bytes();
  ModelFiles files;
  files.weights = bytes.data(), files.weights_size = bytes.size();
  CHECK(std::string(detect_model_format(files).name) == "gguf");

  SUBCASE("every truncation is a ModelError") {
    for (std::size_t n = 4; n < bytes.size(); n += n < 12000 ? 1 : 97) {
      const std::vector<std::uint8_t> cut(bytes.begin(), bytes.begin() + std::ptrdiff_t(n));
      CHECK_THROWS_AS(load(cut), ModelError);
    }
  }
  auto refused = [](const GgufWriter& g) {
    const auto b = g.bytes();
    try {
      load_model({b.data(), b.size(), "", nullptr, 0});
    } catch (const UnsupportedFormat& e) {
      return "unsupported: " + std::string(e.what());
    } catch (const ModelError& e) {
      return std::string(e.what());
    }
    return std::string("loaded");
  };
  SUBCASE("an architecture lookback does not run names the key and value") {
    GgufWriter g = good;
    g.kv.clear(), g.n_kv = 0;
    g.str("general.architecture", "mamba");
    CHECK(refused(g) == "unsupported: GGUF: general.architecture is \"mamba\"; lookback runs GGUF architectures: llama, qwen2, qwen3, gpt2");
  }
  SUBCASE("a tensor type lookback does not decode names the tensor and the type") {
    GgufWriter g = good;
    g.tensors[0].type = 16;
    const std::string m = refused(g);
    CHECK(m.find("unsupported: GGUF: tensor \"" + g.tensors[0].name + "\" has type 16 (IQ2_XXS); lookback reads F32, F16") == 0);
  }
  SUBCASE("version 1, a huge count, a bad alignment, an overlong string") {
    GgufWriter g = good;
    g.version = 1;
    CHECK(refused(g).find("unsupported: GGUF: version 1") == 0);
    std::vector<std::uint8_t> b = bytes;
    b[8] = 0xFF, b[15] = 0x7F;  // tensor count 2^63-ish
    CHECK_THROWS_WITH_AS(read_gguf(b.data(), b.size()), doctest::Contains("the tensor count at byte"), ModelError);
    GgufWriter a;
    a.u32("general.alignment", 24);
    const auto ab = a.bytes();
    CHECK_THROWS_WITH_AS(read_gguf(ab.data(), ab.size()), doctest::Contains("power of two"), ModelError);
    GgufWriter s;
    s.str("k", "v");
    auto sb = s.bytes();
    sb[24 + 8 + 1 + 4] = 0xFF;  // the value's length
    CHECK_THROWS_AS(read_gguf(sb.data(), sb.size()), ModelError);
  }
  SUBCASE("a tensor of the wrong shape or a missing one") {
    GgufWriter g = good;
    g.tensors.pop_back();
    CHECK(refused(g).find("is missing") != std::string::npos);
    GgufWriter h = good;
    auto q = std::find_if(h.tensors.begin(), h.tensors.end(), [](const GgufWriter::T& t) { return t.name == "blk.0.attn_q.weight"; });
    REQUIRE(q != h.tensors.end());
    q->dims = {q->dims[0] * q->dims[1]};  // the same elements as one row
    CHECK(refused(h).find("GGUF: tensor \"blk.0.attn_q.weight\" has dimensions [64]") == 0);
  }
}

namespace {

// The bytes of a file as a source that records each read (where and how many bytes).
struct CountingSource final : ByteSource {
  MemorySource bytes;
  mutable std::vector<std::pair<std::uint64_t, std::size_t>> reads;
  explicit CountingSource(const std::vector<std::uint8_t>& b) : bytes(b.data(), b.size()) {}
  std::uint64_t size() const override { return bytes.size(); }
  void read(std::uint64_t at, std::size_t n, std::uint8_t* out) const override {
    reads.emplace_back(at, n);
    bytes.read(at, n, out);
  }
};

// A llama GGUF of the weights with the plain vocabulary, matrices in `type`.
GgufWriter plain_gguf(const Weights& w, std::uint32_t type) {
  std::vector<std::string> pieces;
  std::vector<float> scores;
  vocabulary({}, w.config().vocab_size, pieces, scores);
  return llama_gguf(w, pieces, scores, type);
}

// Random finite half bits: any sign, exponent 0..30 (subnormals and zero included).
std::uint16_t random_half(Rng& rng) {
  std::uint16_t h = std::uint16_t(rng.next());
  if ((h & 0x7C00u) == 0x7C00u) h &= 0xBFFFu;
  return h;
}

// N rows of K values of ggml type `type` (Q4_0 or Q4_K) from random bytes, their scales random finite halves.
std::vector<std::uint8_t> random_q4_rows(std::uint32_t type, int N, int K, Rng& rng) {
  const GgmlType& t = *ggml_type(type);
  std::vector<std::uint8_t> raw(std::size_t(N) * K / t.block * t.block_bytes);
  for (auto& byte : raw) byte = std::uint8_t(rng.next());
  for (std::size_t b = 0; b < raw.size(); b += std::size_t(t.block_bytes))
    for (int h = 0; h < (type == 12 ? 2 : 1); ++h) {
      const std::uint16_t d = random_half(rng);
      std::memcpy(&raw[b + 2 * h], &d, 2);
    }
  return raw;
}

}  // namespace

TEST_CASE("a GGUF read in parts: front to back, never whole, into the model the whole file gives") {
  const ModelConfig c = gguf_test_config(256, 4608);  // ffn matrices of more than one chunk (1M values)
  const Weights w = random_weights(c, 21);
  Rng rng(9);
  const std::vector<int> ids = random_ids(rng, 10, c.vocab_size, c.bos_id);
  for (std::uint32_t type : {0u, 1u, 8u, 12u}) {
    CAPTURE(ggml_type_name(type));
    GgufWriter g = plain_gguf(w, type == 12 ? 0 : type);
    if (type == 12)
      for (GgufWriter::T& tensor : g.tensors)
        if (tensor.dims.size() == 2) {
          std::vector<float> decoded(std::size_t(tensor.dims[0] * tensor.dims[1]));
          random_blocks(tensor, type, rng, decoded.data());
        }
    const std::vector<std::uint8_t> file = g.bytes();
    REQUIRE(file.size() > 2 * kGgufHeadBytes);
    for (WeightFormat held : {WeightFormat::f32, WeightFormat::f16, WeightFormat::q8, WeightFormat::q4}) {
      CAPTURE(weight_format_name(held));
      CountingSource source(file);
      const LoadedModel m = load_gguf(source, held, 0);
      CHECK(logits_of(m.transformer, ids) == logits_of(load(file, held).transformer, ids));
      std::size_t most = 0, total = 0;
      for (std::size_t i = 0; i < source.reads.size(); ++i) {
        most = std::max(most, source.reads[i].second);
        total += source.reads[i].second;
        if (i > 1) CHECK(source.reads[i].first >= source.reads[i - 1].first + source.reads[i - 1].second);  // front to back
      }
      CHECK(most <= std::max<std::size_t>(kGgufHeadBytes, 4 << 20));
      CHECK(most < file.size() / 2);
      CHECK(total <= file.size() + kGgufHeadBytes);
      // compact matrices are not also held in float32: the weights' buffer holds the rest only
      const std::size_t all = w.size();
      CHECK(m.transformer->weights().holds_matrices() == (held == WeightFormat::f32));
      if (held != WeightFormat::f32) CHECK(m.transformer->weights().size() < all / 4);
    }
  }
}

TEST_CASE("a GGUF header longer than the first part read (a long metadata value) is read again, larger") {
  const ModelConfig c = gguf_test_config(64, 96);
  GgufWriter g = plain_gguf(random_weights(c, 22), 8);
  g.str("general.description", std::string(3 * kGgufHeadBytes / 2, 'a'));
  const std::vector<std::uint8_t> file = g.bytes();
  CountingSource source(file);
  const LoadedModel m = load_gguf(source, std::nullopt, 0);
  REQUIRE(source.reads.size() >= 2);
  CHECK(source.reads[0] == std::make_pair(std::uint64_t(0), kGgufHeadBytes));
  CHECK(source.reads[1] == std::make_pair(std::uint64_t(0), std::min(file.size(), 4 * kGgufHeadBytes)));
  Rng rng(3);
  const std::vector<int> ids = random_ids(rng, 6, c.vocab_size, c.bos_id);
  CHECK(logits_of(m.transformer, ids) == logits_of(load(file, std::nullopt).transformer, ids));
  // a header that claims more than the file holds is still refused as damaged, not read forever
  std::vector<std::uint8_t> cut(file.begin(), file.begin() + std::ptrdiff_t(kGgufHeadBytes + 100));
  CHECK(error_of([&] { load_gguf(MemorySource(cut.data(), cut.size()), std::nullopt, 0); }).find("GGUF") == 0);
}

TEST_CASE("a model that needs more memory than there is is refused before loading, naming the sizes and a format it fits") {
  const ModelConfig c = gguf_test_config(256, 256);
  const Weights w = random_weights(c, 23);
  const std::vector<std::uint8_t> file = plain_gguf(w, 0).bytes();
  std::size_t held = 0;
  for (const TensorSpec& s : w.specs()) held += is_compact_tensor(s.name) ? 0 : 4 * s.size();  // tied: the classifier holds the embedding
  const std::size_t q8 = held + std::size_t(Matrices::bytes_for(c, WeightFormat::q8));
  const MemorySource source(file.data(), file.size());
  const std::string f32 = error_of([&] { load_gguf(source, WeightFormat::f32, q8 + 1000); });
  CHECK(f32.find("with its weights held as 'f32', more than the") != std::string::npos);
  CHECK(f32.find("WebAssembly's memory can still take; held as 'q8' it would take") != std::string::npos);
  CHECK(f32.find(" GB") != std::string::npos);
  CHECK(error_of([&] { load_gguf(source, WeightFormat::q8, q8 + 1000); }) == "(no error)");
  CHECK(error_of([&] { load_gguf(source, WeightFormat::q8, 1000); }).find("in any weight format") != std::string::npos);
}

TEST_CASE("matrices filled in parts refuse unknown names, rows outside a tensor and non-finite weights, and name what never came") {
  const ModelConfig c = gguf_test_config(64, 96);
  const Weights w(c, false);
  CHECK(w.find("layers.0.attention.wq.weight") == nullptr);
  CHECK(w.layer(0).wqkv == nullptr);
  CHECK(w.layer(0).attention_norm != nullptr);
  CHECK(w.embedding() == nullptr);  // held by the matrices, as the tied classifier
  CHECK(w.classifier() == nullptr);
  CHECK(w.layer(0).ffn_norm != nullptr);
  CHECK(is_matrix_tensor("layers.1.feed_forward.w3.weight"));
  CHECK(!is_matrix_tensor("layers.1.ffn_norm.weight"));
  CHECK(!is_matrix_tensor("tok_embeddings.weight"));
  CHECK(is_compact_tensor("tok_embeddings.weight"));
  CHECK(!is_compact_tensor("pos_embeddings.weight"));
  for (WeightFormat f : {WeightFormat::f16, WeightFormat::q8, WeightFormat::q4}) {
    Matrices m(w, f, Matrices::Parts{});
    CHECK(m.bytes() == Matrices::bytes_for(c, f));
    const int HD = c.n_heads * c.head_dim;
    std::vector<float> rows(std::size_t(2) * c.dim, 0.5f);
    CHECK(error_of([&] { m.put("layers.0.attention.wx.weight", 0, 1, rows.data()); }) == "the model has no weight matrix named 'layers.0.attention.wx.weight'");
    CHECK(error_of([&] { m.put("layers.0.attention.wq.weight", HD - 1, 2, rows.data()); }).find("rows ") == 0);
    rows[std::size_t(c.dim) + 3] = std::nanf("");
    CHECK(error_of([&] { m.put("layers.0.attention.wq.weight", 4, 2, rows.data()); }) ==
          "tensor 'layers.0.attention.wq.weight' holds NaN at [5, 3]; weights must be finite");
    CHECK(error_of([&] { m.check_filled(); }).find("the weights for ") == 0);
  }
  CHECK(error_of([&] { Matrices(w, WeightFormat::f32, Matrices::Parts{}); }).find("not f32") != std::string::npos);
}

TEST_CASE("q4_from_ggml holds Q4_0 and Q4_K blocks exactly: its Q4 matrix gives ggml's dequantized values") {
  Rng rng(61);
  for (std::uint32_t type : {2u, 12u})
    for (int N : {1, 3, 4, 9}) {
      const int K = type == 12 ? 512 : 96;
      CAPTURE(ggml_type_name(type));
      CAPTURE(N);
      const std::vector<std::uint8_t> raw = random_q4_rows(type, N, K, rng);
      std::vector<float> want(std::size_t(N) * K), have(want.size());
      dequantize_ggml(*ggml_type(type), raw.data(), want.size(), want.data());
      std::vector<std::uint8_t> q(q4_bytes(N, K));
      q4_from_ggml(*ggml_type(type), raw.data(), N, K, q.data());
      dequantize_q4(q.data(), N, K, have.data());
      for (std::size_t i = 0; i < want.size(); ++i) {
        CAPTURE(i);
        REQUIRE(have[i] == want[i]);  // the same value (a zero's sign may differ: d·q − 8·d against d·(q − 8))
      }
    }
  CHECK_THROWS_AS(q4_from_ggml(*ggml_type(8), nullptr, 1, 32, nullptr), ModelError);
  CHECK_THROWS_AS(q4_from_ggml(*ggml_type(12), nullptr, 1, 288, nullptr), ModelError);
}
