// Scalar reference twins of the matrix-vector kernels (lookback/matvec.hpp) and the Q8 quantiser: plain loops,
// float64 accumulation. They define what the fast kernels compute; tests compare the two. Not meant to be fast.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

#include "lookback/matvec.hpp"
#include "base/fp16.hpp"

namespace lookback {
namespace {

template <class WeightAt>
void matvec_generic(const float* x, int M, int K, int N, float* y, bool acc, int ldx, int ldy, WeightAt w) {
  if (!ldx) ldx = K;
  if (!ldy) ldy = N;
  for (int m = 0; m < M; ++m)
    for (int n = 0; n < N; ++n) {
      double s = 0;
      for (int k = 0; k < K; ++k) s += double(w(n, k)) * x[std::size_t(m) * ldx + k];
      float& out = y[std::size_t(m) * ldy + n];
      out = acc ? float(out + s) : float(s);
    }
}

}  // namespace

void matvec_ref(const float* x, int M, int K, const float* W, int N, float* y, bool acc, int ldx, int ldy) {
  matvec_generic(x, M, K, N, y, acc, ldx, ldy, [&](int n, int k) { return W[std::size_t(n) * K + k]; });
}

void matvec_f16_ref(const float* x, int M, int K, const std::uint16_t* W, int N, float* y, bool acc, int ldx,
                    int ldy) {
  matvec_generic(x, M, K, N, y, acc, ldx, ldy, [&](int n, int k) { return half_to_float(W[std::size_t(n) * K + k]); });
}

void quantize_q8(const float* W, int N, int K, std::int8_t* q) { quantize_q8_rows(W, 0, N, N, K, q); }

void quantize_q8_rows(const float* rows, int n0, int rows_n, int N, int K, std::int8_t* q) {
  const int Kb = q8_blocks(K);
  for (int n = n0; n < n0 + rows_n; ++n)
    for (int b = 0; b < Kb; ++b) {
      const float* w = rows + std::size_t(n - n0) * K + b * kQ8Block;
      const int len = std::min(kQ8Block, K - b * kQ8Block);
      float amax = 0;
      for (int i = 0; i < len; ++i) amax = std::max(amax, std::fabs(w[i]));
      const float inv = amax > 0 ? 127.0f / amax : 0.0f;
      const float scale = amax / 127.0f;
      const Q8Offsets at = q8_offsets(N, K, n, b);
      std::memcpy(q + at.scale, &scale, sizeof scale);
      std::int8_t* qb = q + at.weights;
      for (int i = 0; i < kQ8Block; ++i) qb[i] = i < len ? std::int8_t(std::nearbyint(w[i] * inv)) : 0;
    }
}

void matvec_q8_ref(const float* x, int M, int K, const std::int8_t* q, int N, float* y, bool acc, int ldx, int ldy) {
  if (!ldx) ldx = K;
  if (!ldy) ldy = N;
  const int Kb = q8_blocks(K);
  std::vector<int> xq(static_cast<std::size_t>(Kb) * kQ8Block);
  std::vector<double> xs(static_cast<std::size_t>(Kb));
  for (int m = 0; m < M; ++m) {
    const float* xr = x + std::size_t(m) * ldx;
    bool finite = true;
    for (int b = 0; b < Kb; ++b) {
      const int len = std::min(kQ8Block, K - b * kQ8Block);
      float amax = 0;
      for (int i = 0; i < len; ++i) {
        finite = finite && std::isfinite(xr[b * kQ8Block + i]);
        amax = std::max(amax, std::fabs(xr[b * kQ8Block + i]));
      }
      const float inv = amax > 0 ? 32767.0f / amax : 0.0f;
      xs[b] = amax / 32767.0f;
      for (int i = 0; i < kQ8Block; ++i)
        xq[b * kQ8Block + i] = i < len && finite ? int(std::nearbyint(xr[b * kQ8Block + i] * inv)) : 0;
    }
    for (int n = 0; n < N; ++n) {
      double sum = 0;
      for (int b = 0; b < Kb && finite; ++b) {
        const Q8Offsets at = q8_offsets(N, K, n, b);
        const float scale = q8_scale(q, at.scale);
        long long d = 0;
        for (int i = 0; i < kQ8Block; ++i) d += (long long)q[at.weights + i] * xq[b * kQ8Block + i];
        sum += double(d) * scale * xs[b];
      }
      float& out = y[std::size_t(m) * ldy + n];
      const float v = finite ? float(sum) : NAN;
      out = acc ? out + v : v;
    }
  }
}

}  // namespace lookback
