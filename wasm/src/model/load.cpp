// The formats lookback reads, one entry each, and detect_model_format() over them (see load.hpp). A new format
// is a reader of its own and one entry in kFormats.
#include "model/load.hpp"

#include <nlohmann/json.hpp>

#include "model/gguf_model.hpp"
#include "model/hf_model.hpp"
#include "model/json_depth.hpp"

namespace lookback {
namespace {

using nlohmann::json;

std::string text_of(const std::uint8_t* p, std::size_t n) { return std::string(reinterpret_cast<const char*>(p), n); }

// A safetensors file starts with its header's 8-byte little-endian length (far below 2^48) and then '{'.
bool is_safetensors(const ModelFiles& f) {
  const std::uint8_t* b = f.weights;
  return f.weights_size > 9 && b[8] == '{' && b[6] == 0 && b[7] == 0;
}

// config.json parsed, or null when there is none or it is not JSON (the format's reader then says what is wrong).
json config_of(const ModelFiles& f) {
  if (f.config.empty()) return nullptr;
  check_json_depth(f.config, "config.json");
  return json::parse(f.config, nullptr, false);
}

bool is_window(const ModelFiles& f) {
  if (!is_safetensors(f)) return false;
  const json c = config_of(f);
  return c.is_object() && c.value("arch", json()) == "window";
}

bool is_hf(const ModelFiles& f) { return is_safetensors(f) && !f.config.empty() && is_hf_config(f.config); }

bool is_bundle(const ModelFiles& f) { return is_safetensors(f) && !f.config.empty(); }

bool is_llama2c(const ModelFiles& f) { return !is_safetensors(f) && f.config.empty(); }

bool is_gguf_file(const ModelFiles& f) { return f.config.empty() && is_gguf(f.weights, f.weights_size); }

// A tokenizers file of Hugging Face ("model": {...}, no lookback "type") beside lookback's own config.json.
void refuse_foreign_tokenizer(const ModelFiles& f) {
  const std::string text = text_of(f.tokenizer, f.tokenizer_size);
  check_json_depth(text, "tokenizer.json");
  const json t = json::parse(text, nullptr, false);
  if (t.is_object() && t.contains("model") && t["model"].is_object() && !(t.contains("type") && t["type"].is_string())) {
    const json type = t["model"].value("type", json("unknown"));
    throw UnsupportedFormat("tokenizer.json is a Hugging Face tokenizers file (model " +
                            (type.is_string() ? type.get<std::string>() : type.dump()) +
                            ") but config.json is lookback's own; " + supported_formats());
  }
}

// Shards are read by the Hugging Face reader only (lookback's and the window model's bundles are one file).
void refuse_shards(const ModelFiles& f, const char* what) {
  if (!f.weight_index.empty())
    model_error("model.safetensors.index.json came with ", what, "; only Hugging Face folders are read from shards");
}

// Every format but GGUF holds float32 (or f16 safetensors read as float32) unless asked otherwise.
WeightFormat or_f32(Storage w) { return w.value_or(WeightFormat::f32); }

AnyModel load_lookback(const ModelFiles& f, Storage w) {
  refuse_shards(f, "a lookback bundle's config.json");
  refuse_foreign_tokenizer(f);
  return load_bundle(f.weights, f.weights_size, f.config, text_of(f.tokenizer, f.tokenizer_size), or_f32(w));
}

AnyModel load_hf(const ModelFiles& f, Storage w) {
  const std::string tokenizer = text_of(f.tokenizer, f.tokenizer_size);
  if (!f.weight_index.empty()) return load_hf_model(f.shards, f.weight_index, f.config, tokenizer, or_f32(w), f.memory);
  SafetensorsFile one{"model.safetensors", f.weights, f.weights_size, f.source};
  return load_hf_model({one}, "", f.config, tokenizer, or_f32(w), f.memory);
}

AnyModel load_window(const ModelFiles& f, Storage) {  // stored in float32 whatever is asked
  refuse_shards(f, "a window model's config.json");
  return load_window_bundle(f.weights, f.weights_size, f.config, text_of(f.tokenizer, f.tokenizer_size));
}

AnyModel load_gguf_file(const ModelFiles& f, Storage w) {
  if (f.source) return load_gguf(*f.source, w, f.memory);
  return load_gguf(MemorySource(f.weights, f.weights_size), w, f.memory);
}

AnyModel load_checkpoint(const ModelFiles& f, Storage w) {
  return load_llama2c(f.weights, f.weights_size, f.tokenizer, f.tokenizer_size, or_f32(w));
}

const std::vector<ModelFormat> kFormats = {
    {"window", "window-model bundles (model.safetensors, a config.json with \"arch\": \"window\", tokenizer.json)",
     ".safetensors", true, false, "tokenizer.json", is_window, load_window},
    {"hf", "Hugging Face folders (a config.json naming LlamaForCausalLM, Qwen2ForCausalLM, Qwen3ForCausalLM or "
     "GPT2LMHeadModel, model.safetensors, byte-level BPE tokenizer.json)", ".safetensors", true, true, "tokenizer.json", is_hf,
     load_hf},
    {"lookback", "its own bundles (model.safetensors, a config.json with \"n_layers\", \"n_heads\", \"dim\", "
     "\"rope_layout\" ..., and a tokenizer.json with \"type\": \"byte-bpe\", as written by `npm run train`)",
     ".safetensors", true, false, "tokenizer.json", is_bundle, load_lookback},
    {"gguf", "GGUF files (.gguf, version 2 or 3: architectures llama, qwen2, qwen3 and gpt2 with their llama "
     "(sentencepiece-style) or gpt2 (byte-level BPE) tokenizer; tensors F32, F16, BF16, Q8_0, Q4_0, Q4_K, Q5_K, Q6_K)",
     ".gguf", false, true, "", is_gguf_file, load_gguf_file},
    {"llama2c", "llama2.c checkpoints (.bin with their tokenizer .bin)", ".bin", false, false, "tokenizer.bin", is_llama2c, load_checkpoint},
};

}  // namespace

const std::vector<ModelFormat>& model_formats() { return kFormats; }

std::string supported_formats() {
  std::string s = "lookback reads ";
  for (std::size_t i = 0; i < kFormats.size(); ++i)
    s += std::string(i == 0 ? "" : i + 1 == kFormats.size() ? " and " : ", ") + kFormats[i].files;
  return s;
}

const ModelFormat& detect_model_format(const ModelFiles& files) {
  for (const ModelFormat& f : kFormats)
    if (f.matches(files)) return f;
  if (is_safetensors(files))
    throw MissingFile("the weights are a safetensors file but no config.json came with them; " + supported_formats(), "config.json");
  model_error("config.json came with weights that are not a safetensors file; ", supported_formats());
}

AnyModel load_as(const ModelFormat& format, const ModelFiles& files, Storage weights) {
  if (*format.tokenizer && files.tokenizer_size == 0)
    throw MissingFile(std::string("the weights are ") + format.name + " (" + format.files + ") but no tokenizer came with them (its " +
                          format.tokenizer + ")",
                      "tokenizer");
  return format.load(files, weights);
}

AnyModel load_model(const ModelFiles& files, Storage weights) { return load_as(detect_model_format(files), files, weights); }

}  // namespace lookback
