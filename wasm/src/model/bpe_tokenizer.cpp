// The byte-level BPE tokenizer (model/bpe.hpp) behind the common Tokenizer interface,
// with its errors turned into ModelError. Not here: the BPE rules themselves.
#include <stdexcept>

#include "model/bpe.hpp"
#include "model/errors.hpp"
#include "model/json_depth.hpp"
#include "model/tokenizer.hpp"

namespace lookback {
namespace {

class BpeAdapter final : public Tokenizer {
 public:
  explicit BpeAdapter(BpeTokenizer t) : bpe_(std::move(t)) {}
  std::string kind() const override { return "byte-bpe"; }
  int vocab_size() const override { return bpe_.vocab_size(); }
  int bos_id() const override { return BpeTokenizer::kBos; }
  int eos_id() const override { return BpeTokenizer::kEos; }
  std::vector<int> encode(const std::string& text, bool bos) const override { return bpe_.encode(text, bos); }
  // Every whitespace byte starts a pre-tokenisation chunk (bpe_chunks), and merges never cross chunks: encoding
  // from one gives exactly the end of the full encoding. The piece grows until it holds n tokens.
  std::vector<int> encode_tail(const std::string& text, bool bos, std::size_t n) const override {
    for (std::size_t want = 4 * n + 64; want < text.size(); want *= 2) {
      const std::size_t cut = text.find_first_of(" \n\t\r", text.size() - want);
      if (cut == std::string::npos || cut == 0) continue;
      std::vector<int> ids = bpe_.encode(text.substr(cut), false);
      if (ids.size() < n) continue;
      if (bos) ids.insert(ids.begin(), BpeTokenizer::kBos);
      return ids;
    }
    return bpe_.encode(text, bos);
  }
  std::string decode(const std::vector<int>& ids) const override {
    check(ids);
    return bpe_.decode(ids);
  }
  // every id's bytes are its own (the marks have none)
  std::vector<std::string> decode_each(const std::vector<int>& ids) const override {
    check(ids);
    std::vector<std::string> out;
    out.reserve(ids.size());
    for (int id : ids) out.push_back(bpe_.token_bytes(id));
    return out;
  }
  std::string token_text(int id) const override {
    check({id});
    return bpe_.token_text(id);
  }

 private:
  void check(const std::vector<int>& ids) const {
    for (std::size_t i = 0; i < ids.size(); ++i)
      if (ids[i] < 0 || ids[i] >= vocab_size())
        model_error("token id ", ids[i], " at index ", i, " is outside the vocabulary [0, ", vocab_size(), ")");
  }
  BpeTokenizer bpe_;
};

}  // namespace

std::unique_ptr<Tokenizer> bpe_tokenizer_from_json(const std::string& json_text) {
  check_json_depth(json_text, "tokenizer.json");
  try {
    return std::make_unique<BpeAdapter>(BpeTokenizer::from_json(json_text));
  } catch (const ModelError&) {
    throw;
  } catch (const std::exception& e) {
    model_error(e.what());
  }
}

}  // namespace lookback
