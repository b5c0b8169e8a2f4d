// The split patterns of pretokenize.hpp as matchers over code points classed by unicode_classes.hpp. Each
// alternative is tried in the regex's order at every position; the first that matches is taken.
#include "model/pretokenize.hpp"

#include <algorithm>
#include <cstdint>

#include "model/unicode_classes.hpp"

namespace lookback {
namespace {

enum Class : std::uint8_t { other, letter, number, space };

bool in(const CodeRange* r, std::size_t n, std::uint32_t cp) {
  const CodeRange* end = r + n;
  const CodeRange* it = std::upper_bound(r, end, cp, [](std::uint32_t c, const CodeRange& x) { return c < x.first; });
  return it != r && cp <= (it - 1)->last;
}

struct Char {
  std::uint32_t cp;
  std::size_t at;  // byte offset
  Class cls;
};

// UTF-8 -> code points with their byte offsets (a byte that starts no valid sequence is one "other" character)
std::vector<Char> chars_of(const std::string& s) {
  std::vector<Char> out;
  const std::size_t n = s.size();
  for (std::size_t i = 0; i < n;) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    std::size_t len = c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 0;
    std::uint32_t cp = len == 1 ? c : len == 2 ? c & 0x1F : len == 3 ? c & 0x0F : c & 0x07;
    bool ok = len > 0 && i + len <= n;
    for (std::size_t k = 1; ok && k < len; ++k) {
      const unsigned char d = static_cast<unsigned char>(s[i + k]);
      ok = (d >> 6) == 2;
      cp = (cp << 6) | (d & 0x3F);
    }
    if (!ok) {
      out.push_back({0xFFFD, i, other});
      ++i;
      continue;
    }
    const Class k = in(kLetters, kLettersCount, cp) ? letter : in(kNumbers, kNumbersCount, cp) ? number
                  : in(kSpaces, kSpacesCount, cp) ? space : other;
    out.push_back({cp, i, k});
    i += len;
  }
  return out;
}

struct Matcher {
  const std::vector<Char>& c;
  SplitPattern p;

  std::size_t m() const { return c.size(); }
  bool is(std::size_t i, Class k) const { return i < m() && c[i].cls == k; }
  bool newline(std::size_t i) const { return i < m() && (c[i].cp == '\r' || c[i].cp == '\n'); }
  std::size_t run(std::size_t i, Class k) const {
    while (is(i, k)) ++i;
    return i;
  }

  // 's 't 're 've 'm 'll 'd (any case in the Split regexes; U+017F folds to s)
  std::size_t contraction(std::size_t i) const {
    if (c[i].cp != '\'') return 0;
    const bool fold = p == SplitPattern::llama3 || p == SplitPattern::qwen2;
    auto at = [&](std::size_t k, char want) {
      if (k >= m()) return false;
      std::uint32_t x = c[k].cp;
      if (fold && x >= 'A' && x <= 'Z') x += 32;
      if (fold && x == 0x17F) x = 's';
      return x == std::uint32_t(want);
    };
    for (const char* s : {"s", "t", "re", "ve", "m", "ll", "d"}) {
      std::size_t k = 0;
      while (s[k] && at(i + 1 + k, s[k])) ++k;
      if (!s[k]) return i + 1 + k;
    }
    return 0;
  }

  // \s+(?!\S) then \s+: a whitespace run, leaving its last space to what follows unless it ends the text
  std::size_t spaces(std::size_t i) const {
    const std::size_t e = run(i, space);
    return e < m() && e - i > 1 ? e - 1 : e;
  }

  // GPT-2's pattern; SmolLM's first cuts every digit out, so a digit is a piece and no space joins it
  std::size_t gpt2(std::size_t i) const {
    const bool digits = p == SplitPattern::smollm;
    if (digits && is(i, number)) return i + 1;
    if (const std::size_t e = contraction(i)) return e;
    const std::size_t s = c[i].cp == ' ' ? i + 1 : i;
    for (Class k : {letter, number, other})  // ' ?\p{L}+', ' ?\p{N}+', ' ?[^\s\p{L}\p{N}]+'
      if (is(s, k) && !(digits && k == number)) return run(s, k);
    // a whitespace run before a digit ends its piece, so \s+(?!\S) takes all of it
    if (digits && is(run(i, space), number)) return run(i, space);
    return spaces(i);
  }

  std::size_t split(std::size_t i) const {
    if (const std::size_t e = contraction(i)) return e;
    // [^\r\n\p{L}\p{N}]?\p{L}+
    if ((is(i, other) || (is(i, space) && !newline(i))) && is(i + 1, letter)) return run(i + 1, letter);
    if (is(i, letter)) return run(i, letter);
    // \p{N}{1,3} or \p{N}
    if (is(i, number)) {
      const std::size_t most = p == SplitPattern::llama3 ? 3 : 1;
      std::size_t e = i;
      while (e - i < most && is(e, number)) ++e;
      return e;
    }
    //  ?[^\s\p{L}\p{N}]+[\r\n]*
    const std::size_t s = c[i].cp == ' ' ? i + 1 : i;
    if (is(s, other)) {
      std::size_t e = run(s, other);
      while (newline(e)) ++e;
      return e;
    }
    // \s*[\r\n]+: the whitespace run up to its last line break
    const std::size_t e = run(i, space);
    for (std::size_t k = e; k > i; --k)
      if (newline(k - 1)) return k;
    return spaces(i);
  }
};

const char* const kLlama3 =
    "(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}{1,3}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+";
const char* const kQwen2 =
    "(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+";
const char* const kGpt2 = "'s|'t|'re|'ve|'m|'ll|'d| ?\\p{L}+| ?\\p{N}+| ?[^\\s\\p{L}\\p{N}]+|\\s+(?!\\S)|\\s+";

}  // namespace

std::string split_pattern_regex(SplitPattern pattern) {
  return pattern == SplitPattern::llama3 ? kLlama3 : pattern == SplitPattern::qwen2 ? kQwen2 : "";
}

bool split_pattern_of(const std::string& regex, SplitPattern& out) {
  if (regex == kLlama3) out = SplitPattern::llama3;
  else if (regex == kQwen2) out = SplitPattern::qwen2;
  else if (regex == kGpt2) out = SplitPattern::gpt2;
  else return false;
  return true;
}

std::vector<std::string> pretokenize(SplitPattern pattern, const std::string& text) {
  const std::vector<Char> c = chars_of(text);
  const Matcher matcher{c, pattern};
  std::vector<std::string> out;
  for (std::size_t i = 0; i < c.size();) {
    const bool split = pattern == SplitPattern::llama3 || pattern == SplitPattern::qwen2;
    const std::size_t e = split ? matcher.split(i) : matcher.gpt2(i);
    const std::size_t to = e < c.size() ? c[e].at : text.size();
    out.push_back(text.substr(c[i].at, to - c[i].at));
    i = e;
  }
  return out;
}

}  // namespace lookback
