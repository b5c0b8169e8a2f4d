// ggml's block decoders, transcribed from ggml-quants.c (dequantize_row_q8_0, _q4_0, _q4_K, _q5_K, _q6_K) with
// the same order of float operations, so every value equals llama.cpp's. Not here: the GGUF container.
#include "model/ggml_types.hpp"

#include <cstring>

#include "base/fp16.hpp"

namespace lookback {
namespace {

constexpr int QK_K = 256;


const char* const kAllNames[] = {"F32",  "F16",   "Q4_0",  "Q4_1",    "Q4_2",    "Q4_3",   "Q5_0",  "Q5_1",
                                 "Q8_0", "Q8_1",  "Q2_K",  "Q3_K",    "Q4_K",    "Q5_K",   "Q6_K",  "Q8_K",
                                 "IQ2_XXS", "IQ2_XS", "IQ3_XXS", "IQ1_S", "IQ4_NL", "IQ3_S", "IQ2_S", "IQ4_XS",
                                 "I8",   "I16",   "I32",   "I64",     "F64",     "IQ1_M",  "BF16",  "Q4_0_4_4",
                                 "Q4_0_4_8", "Q4_0_8_8", "TQ1_0", "TQ2_0"};

float f16(const std::uint8_t* p) {
  std::uint16_t h;
  std::memcpy(&h, p, 2);
  return half_to_float(h);
}

float bf16(const std::uint8_t* p) {
  std::uint16_t h;
  std::memcpy(&h, p, 2);
  const std::uint32_t bits = std::uint32_t(h) << 16;
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

const GgmlType kTypes[] = {
    {0, "F32", 1, 4, nullptr},
    {1, "F16", 1, 2, nullptr},
    {30, "BF16", 1, 2, nullptr},
    {8, "Q8_0", 32, 34, dequantize_q8_0_block},
    {2, "Q4_0", 32, 18, dequantize_q4_0_block},
    {12, "Q4_K", QK_K, 144, dequantize_q4_k_block},
    {13, "Q5_K", QK_K, 176, dequantize_q5_k_block},
    {14, "Q6_K", QK_K, 210, dequantize_q6_k_block},
};

}  // namespace

// The 6-bit scale and min of sub-block j of a Q4_K/Q5_K block's 12 scale bytes (ggml's get_scale_min_k4).
void scale_min_k4(int j, const std::uint8_t* q, std::uint8_t* d, std::uint8_t* m) {
  if (j < 4) {
    *d = q[j] & 63;
    *m = q[j + 4] & 63;
  } else {
    *d = std::uint8_t((q[j + 4] & 0xF) | ((q[j - 4] >> 6) << 4));
    *m = std::uint8_t((q[j + 4] >> 4) | ((q[j - 0] >> 6) << 4));
  }
}

const GgmlType* ggml_type(std::uint32_t id) {
  for (const GgmlType& t : kTypes)
    if (t.id == id) return &t;
  return nullptr;
}

std::string ggml_type_name(std::uint32_t id) {
  return id < sizeof kAllNames / sizeof *kAllNames ? kAllNames[id] : "type " + std::to_string(id);
}

std::string ggml_types_read() {
  std::string s;
  for (const GgmlType& t : kTypes) s += std::string(s.empty() ? "" : ", ") + t.name;
  return s;
}

void dequantize_q8_0_block(const std::uint8_t* b, float* y) {  // ggml_half d; int8 qs[32]
  const float d = f16(b);
  for (int j = 0; j < 32; ++j) y[j] = float(std::int8_t(b[2 + j])) * d;
}

void dequantize_q4_0_block(const std::uint8_t* b, float* y) {  // ggml_half d; uint8 qs[16]
  const float d = f16(b);
  const std::uint8_t* qs = b + 2;
  for (int j = 0; j < 16; ++j) {
    const int x0 = (qs[j] & 0x0F) - 8;
    const int x1 = (qs[j] >> 4) - 8;
    y[j] = float(x0) * d;
    y[j + 16] = float(x1) * d;
  }
}

void dequantize_q4_k_block(const std::uint8_t* b, float* y) {  // d, dmin, scales[12], qs[128]
  const float d = f16(b), min = f16(b + 2);
  const std::uint8_t* scales = b + 4;
  const std::uint8_t* q = b + 16;
  int is = 0;
  std::uint8_t sc, m;
  for (int j = 0; j < QK_K; j += 64) {
    scale_min_k4(is + 0, scales, &sc, &m);
    const float d1 = d * sc, m1 = min * m;
    scale_min_k4(is + 1, scales, &sc, &m);
    const float d2 = d * sc, m2 = min * m;
    for (int l = 0; l < 32; ++l) *y++ = d1 * float(q[l] & 0xF) - m1;
    for (int l = 0; l < 32; ++l) *y++ = d2 * float(q[l] >> 4) - m2;
    q += 32;
    is += 2;
  }
}

void dequantize_q5_k_block(const std::uint8_t* b, float* y) {  // d, dmin, scales[12], qh[32], qs[128]
  const float d = f16(b), min = f16(b + 2);
  const std::uint8_t* scales = b + 4;
  const std::uint8_t* qh = b + 16;
  const std::uint8_t* ql = b + 48;
  int is = 0;
  std::uint8_t sc, m;
  std::uint8_t u1 = 1, u2 = 2;
  for (int j = 0; j < QK_K; j += 64) {
    scale_min_k4(is + 0, scales, &sc, &m);
    const float d1 = d * sc, m1 = min * m;
    scale_min_k4(is + 1, scales, &sc, &m);
    const float d2 = d * sc, m2 = min * m;
    for (int l = 0; l < 32; ++l) *y++ = d1 * float((ql[l] & 0xF) + (qh[l] & u1 ? 16 : 0)) - m1;
    for (int l = 0; l < 32; ++l) *y++ = d2 * float((ql[l] >> 4) + (qh[l] & u2 ? 16 : 0)) - m2;
    ql += 32;
    is += 2;
    u1 = std::uint8_t(u1 << 2);
    u2 = std::uint8_t(u2 << 2);
  }
}

void dequantize_q6_k_block(const std::uint8_t* b, float* y) {  // ql[128], qh[64], int8 scales[16], d
  const std::uint8_t* ql = b;
  const std::uint8_t* qh = b + 128;
  const std::int8_t* sc = reinterpret_cast<const std::int8_t*>(b + 192);
  const float d = f16(b + 208);
  for (int n = 0; n < QK_K; n += 128) {
    for (int l = 0; l < 32; ++l) {
      const int is = l / 16;
      const int q1 = int((ql[l + 0] & 0xF) | (((qh[l] >> 0) & 3) << 4)) - 32;
      const int q2 = int((ql[l + 32] & 0xF) | (((qh[l] >> 2) & 3) << 4)) - 32;
      const int q3 = int((ql[l + 0] >> 4) | (((qh[l] >> 4) & 3) << 4)) - 32;
      const int q4 = int((ql[l + 32] >> 4) | (((qh[l] >> 6) & 3) << 4)) - 32;
      y[l + 0] = d * float(sc[is + 0]) * float(q1);
      y[l + 32] = d * float(sc[is + 2]) * float(q2);
      y[l + 64] = d * float(sc[is + 4]) * float(q3);
      y[l + 96] = d * float(sc[is + 6]) * float(q4);
    }
    y += 128;
    ql += 64;
    qh += 32;
    sc += 8;
  }
}

void dequantize_ggml(const GgmlType& t, const std::uint8_t* bytes, std::size_t n, float* out) {
  switch (t.id) {
    case 0: std::memcpy(out, bytes, n * 4); return;
    case 1: for (std::size_t i = 0; i < n; ++i) out[i] = f16(bytes + 2 * i); return;
    case 30: for (std::size_t i = 0; i < n; ++i) out[i] = bf16(bytes + 2 * i); return;
    default: break;
  }
  for (std::size_t i = 0; i < n / std::size_t(t.block); ++i) t.decode_block(bytes + i * std::size_t(t.block_bytes), out + i * std::size_t(t.block));
}

}  // namespace lookback
