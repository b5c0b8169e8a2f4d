// A Hugging Face byte-level BPE tokenizer.json for the tests of the Hugging Face readers (test_hf_model.cpp, the
// native fuzz campaign): GPT-2's byte characters and three merges. Not a test itself.
#pragma once
#include <string>

namespace lookback::testing {

// GPT-2's byte characters of the printable ASCII bytes are the bytes themselves; space is "Ġ" (U+0120).
// Vocabulary: the 256 byte tokens in byte order (ids 0..255), then merges "Ġ t" -> 256, "h e" -> 257,
// "Ġt he" -> 258; added <s> 259 (special), </s> 260 (special).
inline std::string byte_char(int b) {
  const bool printable = (b >= 33 && b <= 126) || (b >= 161 && b <= 172) || (b >= 174);
  if (printable && b < 128) return std::string(1, char(b));
  int n = 256;
  for (int x = 0; x < b; ++x)
    if (!((x >= 33 && x <= 126) || (x >= 161 && x <= 172) || (x >= 174))) ++n;
  const int cp = printable ? b : n;
  std::string s;
  s += char(0xC0 | (cp >> 6));
  s += char(0x80 | (cp & 0x3F));
  return s;
}

inline std::string tokenizer_json(const std::string& pre = R"({"type":"ByteLevel","add_prefix_space":false})") {
  std::string vocab;
  for (int b = 0; b < 256; ++b) {
    std::string c = byte_char(b);
    if (c == "\"" || c == "\\") c = "\\" + c;
    vocab += "\"" + c + "\":" + std::to_string(b) + ",";
  }
  vocab += "\"\xC4\xA0t\":256,\"he\":257,\"\xC4\xA0the\":258";
  return R"({"version":"1.0","added_tokens":[{"id":259,"content":"<s>","special":true},)"
         R"({"id":260,"content":"</s>","special":true}],"pre_tokenizer":)" + pre +
         R"(,"decoder":{"type":"ByteLevel"},"model":{"type":"BPE","vocab":{)" + vocab +
         R"(},"merges":["\u0120 t","h e",["\u0120t","he"]]}})";
}

}  // namespace lookback::testing
