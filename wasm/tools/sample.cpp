// lookback-sample: writes stories sampled from a llama2.c checkpoint (stories260K), one per line, for Sprout's
// training mix: plain TinyStories-like phrasing beside the generator's structured stories (distillation).
// Its forward pass is a self-contained scalar copy of llama2.c's, deliberately independent of lookback's runtime,
// so that optimising the runtime never changes the training data (the recipe stamp covers this file only).
// Not the runtime (model/llama2c.cpp) and not a general sampler (model/sampler.cpp).
//
//   lookback-sample --model stories260K.bin --tokenizer tok512.bin --stories 60000 --seed 7 --out samples.txt
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>
#include <iterator>
#include <stdexcept>
#include <string>
#include <vector>

#include "base/cli.hpp"
#include "base/read_file.hpp"
#include "model/rng.hpp"

namespace {

// llama2.c's header and weights (legacy format, tied classifier): every W[out][in] applies as y = W x.
struct Checkpoint {
  int dim = 0, hidden = 0, layers = 0, heads = 0, kv_heads = 0, vocab = 0, seq = 0;
  std::vector<float> data;
  const float *emb, *rms_att, *wq, *wk, *wv, *wo, *rms_ffn, *w1, *w2, *w3, *rms_final;
};

Checkpoint load_checkpoint(const std::string& path) {
  const std::string bytes = lookback::read_file(path);
  Checkpoint c;
  if (bytes.size() < 28) throw std::runtime_error(path + ": too short for a llama2.c header");
  int h[7];
  std::memcpy(h, bytes.data(), sizeof h);
  c.dim = h[0], c.hidden = h[1], c.layers = h[2], c.heads = h[3], c.kv_heads = h[4], c.vocab = h[5], c.seq = h[6];
  if (c.vocab <= 0 || c.dim <= 0 || c.heads <= 0 || c.kv_heads <= 0 || c.dim % c.heads) {
    throw std::runtime_error(path + ": this sampler reads tied-classifier llama2.c checkpoints only");
  }
  const size_t D = c.dim, F = c.hidden, L = c.layers, V = c.vocab, kv = D / c.heads * c.kv_heads;
  const size_t need = V * D + L * (D + D * D + 2 * kv * D + D * D + D + 3 * F * D) + D;
  if ((bytes.size() - 28) / 4 < need) throw std::runtime_error(path + ": truncated weights");
  c.data.resize((bytes.size() - 28) / 4);
  std::memcpy(c.data.data(), bytes.data() + 28, c.data.size() * 4);
  const float* p = c.data.data();
  auto take = [&](size_t n) { const float* q = p; p += n; return q; };
  c.emb = take(V * D), c.rms_att = take(L * D), c.wq = take(L * D * D), c.wk = take(L * kv * D);
  c.wv = take(L * kv * D), c.wo = take(L * D * D), c.rms_ffn = take(L * D), c.w1 = take(L * F * D);
  c.w2 = take(L * D * F), c.w3 = take(L * F * D), c.rms_final = take(D);
  return c;
}

// tok512.bin: uint32 max length, then per id: float score, int32 length, bytes. Decoding only.
std::vector<std::string> load_pieces(const std::string& path, int vocab) {
  const std::string b = lookback::read_file(path);
  std::vector<std::string> pieces;
  size_t at = 4;
  for (int i = 0; i < vocab; ++i) {
    int len = 0;
    if (at + 8 > b.size()) throw std::runtime_error(path + ": truncated tokenizer");
    std::memcpy(&len, b.data() + at + 4, 4);
    at += 8;
    if (len < 0 || at + size_t(len) > b.size()) throw std::runtime_error(path + ": bad piece length");
    pieces.emplace_back(b.data() + at, size_t(len));
    at += size_t(len);
  }
  return pieces;
}

void rmsnorm(float* out, const float* x, const float* w, int n) {
  float ss = 0;
  for (int i = 0; i < n; ++i) ss += x[i] * x[i];
  ss = 1.0f / std::sqrt(ss / n + 1e-5f);
  for (int i = 0; i < n; ++i) out[i] = w[i] * (ss * x[i]);
}

// out[R] = W[R, C] x[C]
void matvec(float* out, const float* x, const float* W, int C, int R) {
  for (int r = 0; r < R; ++r) {
    float s = 0;
    const float* w = W + size_t(r) * C;
#pragma omp simd reduction(+ : s)
    for (int c = 0; c < C; ++c) s += w[c] * x[c];
    out[r] = s;
  }
}

// One story's decoding state: the KV cache and scratch for a forward pass at one position.
struct State {
  std::vector<float> x, xb, xb2, hb, hb2, q, att, logits, k_cache, v_cache;
  explicit State(const Checkpoint& c) {
    const int kv = c.dim / c.heads * c.kv_heads;
    x.resize(c.dim), xb.resize(c.dim), xb2.resize(c.dim), hb.resize(c.hidden), hb2.resize(c.hidden);
    q.resize(c.dim), att.resize(c.seq), logits.resize(c.vocab);
    k_cache.resize(size_t(c.layers) * c.seq * kv), v_cache.resize(size_t(c.layers) * c.seq * kv);
  }
};

// One head at position pos: out[HS] = softmax(q . k_t / sqrt(HS), t <= pos) weighted sum of v_t.
// k, v: rows of `stride` floats, this head's slice first. HS = 0 means the width is the runtime `hs`.
template <int HS>
void attend(const float* q, const float* k, const float* v, int stride, int pos, float* att, float* out, int hs = HS) {
  const int n = HS ? HS : hs;
  const float scale = 1.0f / std::sqrt(float(n));
  float mx = -INFINITY;
  for (int t = 0; t <= pos; ++t) {
    const float* kt = k + size_t(t) * stride;
    float sc = 0;
    for (int i = 0; i < n; ++i) sc += q[i] * kt[i];
    att[t] = sc * scale;
    mx = std::max(mx, att[t]);
  }
  float sum = 0;
  for (int t = 0; t <= pos; ++t) sum += (att[t] = std::exp(att[t] - mx));
  std::fill(out, out + n, 0.0f);
  for (int t = 0; t <= pos; ++t) {
    const float* vt = v + size_t(t) * stride;
    const float a = att[t] / sum;
    for (int i = 0; i < n; ++i) out[i] += a * vt[i];
  }
}

// llama2.c's forward(): the logits for `token` at position `pos`, given the cache of earlier positions.
const float* forward(const Checkpoint& c, State& s, int token, int pos) {
  const int D = c.dim, F = c.hidden, hs = D / c.heads, kv = hs * c.kv_heads, group = c.heads / c.kv_heads;
  std::copy(c.emb + size_t(token) * D, c.emb + size_t(token + 1) * D, s.x.begin());
  for (int l = 0; l < c.layers; ++l) {
    rmsnorm(s.xb.data(), s.x.data(), c.rms_att + size_t(l) * D, D);
    float* kc = s.k_cache.data() + (size_t(l) * c.seq + pos) * kv;
    float* vc = s.v_cache.data() + (size_t(l) * c.seq + pos) * kv;
    matvec(s.q.data(), s.xb.data(), c.wq + size_t(l) * D * D, D, D);
    matvec(kc, s.xb.data(), c.wk + size_t(l) * kv * D, D, kv);
    matvec(vc, s.xb.data(), c.wv + size_t(l) * kv * D, D, kv);
    for (int i = 0; i < D; i += 2) {  // RoPE on adjacent pairs within each head
      const float freq = 1.0f / std::pow(10000.0f, float(i % hs) / float(hs));
      const float fcr = std::cos(pos * freq), fci = std::sin(pos * freq);
      for (int which = 0; which < (i < kv ? 2 : 1); ++which) {
        float* v = which == 0 ? s.q.data() : kc;
        const float v0 = v[i], v1 = v[i + 1];
        v[i] = v0 * fcr - v1 * fci;
        v[i + 1] = v0 * fci + v1 * fcr;
      }
    }
    const float* K = s.k_cache.data() + size_t(l) * c.seq * kv;
    const float* Vc = s.v_cache.data() + size_t(l) * c.seq * kv;
    for (int h = 0; h < c.heads; ++h) {
      if (hs == 8) attend<8>(s.q.data() + h * hs, K + (h / group) * hs, Vc + (h / group) * hs, kv, pos, s.att.data(), s.xb.data() + h * hs);
      else attend<0>(s.q.data() + h * hs, K + (h / group) * hs, Vc + (h / group) * hs, kv, pos, s.att.data(), s.xb.data() + h * hs, hs);
    }
    matvec(s.xb2.data(), s.xb.data(), c.wo + size_t(l) * D * D, D, D);
    for (int i = 0; i < D; ++i) s.x[i] += s.xb2[i];
    rmsnorm(s.xb.data(), s.x.data(), c.rms_ffn + size_t(l) * D, D);
    matvec(s.hb.data(), s.xb.data(), c.w1 + size_t(l) * F * D, D, F);
    matvec(s.hb2.data(), s.xb.data(), c.w3 + size_t(l) * F * D, D, F);
    for (int i = 0; i < F; ++i) s.hb[i] = s.hb[i] / (1.0f + std::exp(-s.hb[i])) * s.hb2[i];
    matvec(s.xb.data(), s.hb.data(), c.w2 + size_t(l) * D * F, F, D);
    for (int i = 0; i < D; ++i) s.x[i] += s.xb[i];
  }
  rmsnorm(s.x.data(), s.x.data(), c.rms_final, D);
  matvec(s.logits.data(), s.x.data(), c.emb, D, c.vocab);
  return s.logits.data();
}

// Nucleus sampling at a temperature: the smallest set of most probable ids holding mass top_p.
// Temperature 0 is the most probable id (greedy).
int sample(const float* logits, int V, float temperature, float top_p, lookback::Rng& rng) {
  if (temperature == 0) return int(std::max_element(logits, logits + V) - logits);
  std::vector<float> e(V);
  float mx = *std::max_element(logits, logits + V), sum = 0;
  for (int i = 0; i < V; ++i) sum += (e[i] = std::exp((logits[i] - mx) / temperature));
  // An id below (1 - top_p) / (V - 1) of the mass can never be in the nucleus (llama2.c's cut-off).
  const float cutoff = (1.0f - top_p) / float(V - 1) * sum;
  std::vector<std::pair<float, int>> p;
  for (int i = 0; i < V; ++i) {
    if (e[i] >= cutoff) p.emplace_back(e[i], i);
  }
  V = int(p.size());
  std::sort(p.begin(), p.end(), [](auto& a, auto& b) { return a.first > b.first || (a.first == b.first && a.second < b.second); });
  float kept = 0;
  int n = 0;
  while (n < V && kept < top_p * sum) kept += p[n++].first;
  float r = rng.uniform() * kept;
  for (int i = 0; i < n; ++i) {
    if ((r -= p[i].first) < 0) return p[i].second;
  }
  return p[n - 1].second;
}

// Appends one piece's text: "<0xXX>" is a byte; the first piece after BOS loses its leading space.
void append_piece(std::string& out, const std::string& piece, bool first) {
  unsigned byte = 0;
  if (piece.size() == 6 && std::sscanf(piece.c_str(), "<0x%02X>", &byte) == 1) {
    out += char(byte);
    return;
  }
  out += first && !piece.empty() && piece[0] == ' ' ? piece.substr(1) : piece;
}

// A sampled story as one line: newlines become spaces; cut after the last sentence end within max_chars.
// Empty when the story is unusable (non-ASCII bytes, or no sentence end).
std::string one_line(std::string text, size_t max_chars) {
  for (char& ch : text) {
    if (ch == '\n' || ch == '\r' || ch == '\t') ch = ' ';
    if (static_cast<unsigned char>(ch) >= 128 || (static_cast<unsigned char>(ch) < 32)) return "";
  }
  std::string squeezed;
  for (char ch : text) {
    if (ch == ' ' && (squeezed.empty() || squeezed.back() == ' ')) continue;
    squeezed += ch;
  }
  if (squeezed.size() > max_chars) squeezed.resize(max_chars);
  const size_t end = squeezed.find_last_of(".!?\"");
  if (end == std::string::npos || end < 40) return "";
  squeezed.resize(end + 1);
  if (squeezed.back() == '"' && (squeezed.size() < 2 || std::string(".!?").find(squeezed[squeezed.size() - 2]) == std::string::npos)) return "";
  return squeezed;
}

struct Args {
  std::string model, tokenizer, out;
  long long stories = 1000;
  uint64_t seed = 1;
  float temperature = 0.9f, top_p = 0.95f;
  int max_tokens = 256, max_chars = 1000, threads = 2;
};

const lookback::cli::Usage kUsage{"lookback-sample",
    "usage: lookback-sample --model stories260K.bin --tokenizer tok512.bin --stories N --out FILE\n"
    "                       [--seed S] [--temperature 0.9] [--top-p 0.95] [--max-tokens 256]\n"
    "                       [--max-chars 1000] [--threads 2]\n"
    "Story i is sampled from seed (S, i) alone, so the file is the same on any thread count.\n"};

[[noreturn]] void usage(const std::string& error) { kUsage.fail(error); }

Args parse(int argc, char** argv) {
  Args a;
  lookback::cli::parse(kUsage, argc, argv, [&](const std::string& k, auto value) {
    if (k == "--model") a.model = value();
    else if (k == "--tokenizer") a.tokenizer = value();
    else if (k == "--out") a.out = value();
    else if (k == "--stories") a.stories = std::stoll(value());
    else if (k == "--seed") a.seed = std::stoull(value());
    else if (k == "--temperature") a.temperature = std::stof(value());
    else if (k == "--top-p") a.top_p = std::stof(value());
    else if (k == "--max-tokens") a.max_tokens = std::stoi(value());
    else if (k == "--max-chars") a.max_chars = std::stoi(value());
    else if (k == "--threads") a.threads = std::stoi(value());
    else return false;
    return true;
  });
  if (a.model.empty() || a.tokenizer.empty() || a.out.empty()) usage("--model, --tokenizer and --out are needed");
  if (a.stories < 0 || a.max_tokens < 2 || a.threads < 1 || !(a.temperature >= 0) || !(a.top_p > 0 && a.top_p <= 1)) {
    usage("counts must be positive, temperature >= 0, 0 < top-p <= 1");
  }
  return a;
}

// Story i: BOS, then tokens until the model writes BOS again (its end of story) or max_tokens.
std::string story(const Checkpoint& c, const std::vector<std::string>& pieces, const Args& a, long long i) {
  State s(c);
  lookback::Rng rng(a.seed * 0x9E3779B97F4A7C15ull + uint64_t(i) * 0xD1B54A32D192ED03ull + 1);
  std::string text;
  int token = 1;  // BOS
  const int steps = std::min(a.max_tokens, c.seq);
  for (int pos = 0; pos < steps; ++pos) {
    const int next = sample(forward(c, s, token, pos), c.vocab, a.temperature, a.top_p, rng);
    if (next == 1 || next == 2) break;
    append_piece(text, pieces[size_t(next)], pos == 0);
    token = next;
  }
  return one_line(text, size_t(a.max_chars));
}

}  // namespace

int main(int argc, char** argv) {
  const Args a = parse(argc, argv);
  try {
    const Checkpoint c = load_checkpoint(a.model);
    const std::vector<std::string> pieces = load_pieces(a.tokenizer, c.vocab);
    std::vector<std::string> lines(size_t(a.stories));
    omp_set_num_threads(a.threads);
#pragma omp parallel for schedule(dynamic, 16)
    for (long long i = 0; i < a.stories; ++i) lines[size_t(i)] = story(c, pieces, a, i);
    std::ofstream out(a.out, std::ios::binary);
    long long kept = 0, bytes = 0;
    for (const std::string& line : lines) {
      if (line.empty()) continue;
      out << line << '\n';
      ++kept, bytes += static_cast<long long>(line.size());
    }
    if (!out) throw std::runtime_error("cannot write " + a.out);
    std::printf("sampled %lld stories, kept %lld (%lld bytes) -> %s\n", a.stories, kept, bytes, a.out.c_str());
  } catch (const std::exception& e) {
    std::cerr << "lookback-sample: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
