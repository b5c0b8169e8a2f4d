// Hugging Face model reading: GPT-2 pre-tokenisation chunks, the byte-level BPE tokenizer (merges by rank,
// round trips, special tokens, what it refuses), the config mapping of Llama, Qwen2, Qwen3 and GPT-2 and their
// refusals, and tensor names. Whole folders are tested from JS: a Llama folder against the lookback model it was
// converted from (tests/js/hf-model.test.mjs), every architecture against numpy (tests/js/hf-reference.test.mjs).
// Runs natively and in WebAssembly.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "model/errors.hpp"
#include "model/hf_model.hpp"
#include "model/hf_tokenizer.hpp"
#include "model/pretokenize.hpp"
#include "hf_fixtures.hpp"
#include "test_util.hpp"

using namespace lookback;
using lookback::testing::byte_char;
using lookback::testing::error_of;
using lookback::testing::tokenizer_json;

TEST_CASE("gpt2_chunks splits as GPT-2's pattern does") {
  using V = std::vector<std::string>;
  CHECK(gpt2_chunks("Mia took her doll.") == V{"Mia", " took", " her", " doll", "."});
  CHECK(gpt2_chunks("it's 42 cats!!") == V{"it", "'s", " 42", " cats", "!!"});
  CHECK(gpt2_chunks("a  b\n\nc ") == V{"a", " ", " b", "\n", "\n", "c", " "});
  CHECK(gpt2_chunks("x \n y") == V{"x", " \n", " y"});
  CHECK(gpt2_chunks("héllo wörld") == V{"héllo", " wörld"});
  CHECK(gpt2_chunks("") == V{});
}

TEST_CASE("the Split patterns of Llama 3 and Qwen2 and GPT-2's split by Unicode letters, numbers and spaces") {
  using V = std::vector<std::string>;
  const std::string text = "Hello world 12345!!\n\n  x";
  CHECK(pretokenize(SplitPattern::llama3, text) == V{"Hello", " world", " ", "123", "45", "!!\n\n", " ", " x"});
  CHECK(pretokenize(SplitPattern::qwen2, text) == V{"Hello", " world", " ", "1", "2", "3", "4", "5", "!!\n\n", " ", " x"});
  // contractions: any case in the Split patterns, lower case only in GPT-2's
  CHECK(pretokenize(SplitPattern::llama3, "I'LL") == V{"I", "'LL"});
  CHECK(pretokenize(SplitPattern::gpt2, "I'LL") == V{"I", "'", "LL"});
  // an emoji is no letter; CJK and Arabic letters are; a tab before a word joins it in the Split patterns
  CHECK(pretokenize(SplitPattern::gpt2, "a\U0001F600b \u4E2D\u6587 \u0645\u0631") == V{"a", "\U0001F600", "b", " \u4E2D\u6587", " \u0645\u0631"});
  CHECK(pretokenize(SplitPattern::llama3, "x\tword") == V{"x", "\tword"});
  CHECK(pretokenize(SplitPattern::llama3, "") == V{});
  // SmolLM's: every digit alone and no space joins one (a whitespace run before a digit is a piece whole), the
  // rest as GPT-2's, contractions in lower case only
  CHECK(pretokenize(SplitPattern::gpt2, text) == V{"Hello", " world", " 12345", "!!", "\n\n ", " x"});
  CHECK(pretokenize(SplitPattern::smollm, text) == V{"Hello", " world", " ", "1", "2", "3", "4", "5", "!!", "\n\n ", " x"});
  CHECK(pretokenize(SplitPattern::smollm, "a  7b's I'LL") == V{"a", "  ", "7", "b", "'s", " I", "'", "LL"});
  CHECK(pretokenize(SplitPattern::smollm, "x \u0661\u0662\u00B2") == V{"x", " ", "\u0661", "\u0662", "\u00B2"});  // every \p{N}
  SplitPattern p = SplitPattern::gpt2;
  CHECK_FALSE(split_pattern_of("\\s+", p));
}

TEST_CASE("the byte-level BPE merges by rank and decodes back to the bytes") {
  const HfBpeTokenizer t(tokenizer_json(), 300, 259, 260);
  CHECK(t.kind() == "hf-byte-bpe");
  CHECK(t.vocab_size() == 300);
  // " the" -> Ġt (256) + he (257) -> Ġthe (258)
  CHECK(t.encode("the the", false) == std::vector<int>{'t', 257, 258});
  CHECK(t.encode("the", true) == std::vector<int>{259, 't', 257});
  const std::string text = "Tom's 3 cats\n sat, then\tleft. é€";
  CHECK(t.decode(t.encode(text, true)) == text);
  CHECK(t.token_text(258) == " the");
  CHECK(t.token_text(259) == "\u25C6");
  CHECK(t.token_text(260) == "\u25C7");
  CHECK(t.token_text(0xC3) == "<0xC3>");  // half a character
  CHECK(t.token_text(280) == "<unused 280>");
  CHECK(t.decode({259, 'a', 260}) == "a");
  CHECK_THROWS_AS(t.decode({300}), ModelError);
}

TEST_CASE("add_prefix_space puts a space before the text") {
  const HfBpeTokenizer t(tokenizer_json(R"({"type":"ByteLevel","add_prefix_space":true})"), 261, 259, 260);
  CHECK(t.encode("the", false) == std::vector<int>{258});
}

TEST_CASE("tokenizers that are not byte-level BPE are refused with what is read") {
  CHECK(error_of([] { HfBpeTokenizer(R"({"model":{"type":"Unigram","vocab":[]}})", 10, 0, 1); })
            .find("model type \"Unigram\"; lookback reads BPE tokenizers") != std::string::npos);
  CHECK(error_of([] { HfBpeTokenizer(R"({"model":{"type":"BPE","byte_fallback":true,"vocab":{},"merges":[]}})", 10, 0, 1); })
            .find("byte_fallback needs <0x00> to <0xFF>") != std::string::npos);
  CHECK(error_of([] { HfBpeTokenizer(tokenizer_json(R"({"type":"Metaspace"})"), 300, 259, 260); })
            .find("is not one lookback reads (ByteLevel") != std::string::npos);
  CHECK(error_of([] { HfBpeTokenizer(tokenizer_json(R"({"type":"Split","pattern":{"Regex":"\\s+"},"behavior":"Isolated"})"), 300, 259, 260); })
            .find("a regex lookback does not implement") != std::string::npos);
  CHECK(error_of([] { HfBpeTokenizer(tokenizer_json(), 200, 0, 1); }).find("outside the model's vocabulary of 200") !=
        std::string::npos);
}

TEST_CASE("a LlamaForCausalLM config maps to lookback's, with the rotate-half layout") {
  const ModelConfig c = hf_config(R"({"architectures":["LlamaForCausalLM"],"model_type":"llama",
    "hidden_size":64,"num_hidden_layers":2,"num_attention_heads":4,"num_key_value_heads":2,"intermediate_size":96,
    "vocab_size":300,"max_position_embeddings":8192,"rms_norm_eps":1e-5,"rope_theta":500000.0,
    "tie_word_embeddings":true,"bos_token_id":259,"eos_token_id":[260,261],"hidden_act":"silu",
    "rope_scaling":null,"torch_dtype":"bfloat16"})");
  CHECK(c.dim == 64);
  CHECK(c.n_layers == 2);
  CHECK(c.n_heads == 4);
  CHECK(c.n_kv_heads == 2);
  CHECK(c.head_dim == 16);
  CHECK(c.hidden_dim == 96);
  CHECK(c.max_seq_len == kHfMaxContext);
  CHECK(c.rope_theta == doctest::Approx(500000.0));
  CHECK(c.rope_layout == RopeLayout::half);
  CHECK_FALSE(c.qk_norm);
  CHECK(c.tied_embeddings);
  CHECK(c.bos_id == 259);
  CHECK(c.eos_id == 260);
  CHECK(is_hf_config(R"({"model_type":"llama"})"));
  CHECK_FALSE(is_hf_config(R"({"dim":4})"));
  CHECK_FALSE(is_hf_config("not json"));
}

TEST_CASE("Llama variants lookback does not run are refused by name") {
  const std::string base = R"({"architectures":["LlamaForCausalLM"],"hidden_size":64,"num_hidden_layers":2,)"
                           R"("num_attention_heads":4,"intermediate_size":96,"vocab_size":300)";
  auto err = [](const std::string& text) {
    try {
      hf_config(text);
    } catch (const ModelError& e) {
      return std::string(e.what());
    }
    return std::string("(no error)");
  };
  CHECK(err(base + "}") == "(no error)");
  CHECK(err(base + R"(,"rope_scaling":{"type":"linear","factor":2}})").find("rope_scaling") != std::string::npos);
  CHECK(err(base + R"(,"rope_scaling":{"rope_type":"yarn","factor":4}})").find("\"rope_type\": \"llama3\"") != std::string::npos);
  CHECK(err(base + R"(,"hidden_act":"gelu"})").find("silu only") != std::string::npos);
  CHECK(err(R"({"architectures":["MistralForCausalLM"]})") ==
        "config.json: architectures [\"MistralForCausalLM\"] (model_type \"\"); of the Hugging Face formats lookback "
        "reads LlamaForCausalLM, Qwen2ForCausalLM, Qwen3ForCausalLM, GPT2LMHeadModel");
  const std::string qwen2 = R"({"architectures":["Qwen2ForCausalLM"],"hidden_size":64,"num_hidden_layers":2,)"
                            R"("num_attention_heads":4,"intermediate_size":96,"vocab_size":300)";
  CHECK(err(qwen2 + R"(,"use_sliding_window":true})") ==
        "config.json: \"use_sliding_window\": true is not supported (every layer attends to the whole context)");
  const std::string gpt2 = R"({"architectures":["GPT2LMHeadModel"],"n_embd":64,"n_layer":2,"n_head":4,"vocab_size":300)";
  CHECK(err(gpt2 + R"(,"activation_function":"relu"})").find("activation_function \"relu\"") != std::string::npos);
  CHECK(err(gpt2 + R"(,"scale_attn_by_inverse_layer_idx":true})").find("scale_attn_by_inverse_layer_idx") != std::string::npos);
  CHECK(err(gpt2 + R"(,"add_cross_attention":true})").find("add_cross_attention") != std::string::npos);
  CHECK(err(gpt2 + R"(,"tie_word_embeddings":false})").find("tie_word_embeddings") != std::string::npos);
  CHECK(err(R"({"architectures":["GPT2LMHeadModel"],"n_embd":66,"n_layer":2,"n_head":4,"vocab_size":300})")
            .find("n_embd (66) must be a multiple of n_head (4)") != std::string::npos);
  CHECK(err(R"({"architectures":["LlamaForCausalLM"]})").find("missing \"hidden_size\"") != std::string::npos);
}

TEST_CASE("Qwen2, Qwen3, GPT-2 and Llama 3.1 configs map to lookback's variants") {
  const ModelConfig q2 = hf_config(R"({"architectures":["Qwen2ForCausalLM"],"hidden_size":64,"num_hidden_layers":2,)"
                                   R"("num_attention_heads":4,"num_key_value_heads":2,"intermediate_size":96,)"
                                   R"("vocab_size":300,"rope_theta":1000000.0,"tie_word_embeddings":true,)"
                                   R"("use_sliding_window":false,"sliding_window":32})");
  CHECK((q2.qkv_bias && !q2.out_bias && !q2.mlp_bias && !q2.qk_norm && q2.tied_embeddings));
  CHECK(q2.rope_theta == 1e6f);
  CHECK(q2.rope_layout == RopeLayout::half);
  const ModelConfig q3 = hf_config(R"({"architectures":["Qwen3ForCausalLM"],"hidden_size":64,"num_hidden_layers":2,)"
                                   R"("num_attention_heads":4,"num_key_value_heads":2,"head_dim":32,)"
                                   R"("intermediate_size":96,"vocab_size":300,"attention_bias":false})");
  CHECK((q3.qk_norm && !q3.qkv_bias && q3.head_dim == 32 && q3.n_heads * q3.head_dim == 128));
  const ModelConfig g = hf_config(R"({"architectures":["GPT2LMHeadModel"],"n_embd":64,"n_layer":2,"n_head":4,)"
                                  R"("vocab_size":300,"n_positions":4096,"n_inner":null,"layer_norm_epsilon":1e-5,"bos_token_id":299,"eos_token_id":299})");
  CHECK((g.norm == Norm::layer && g.positions == Positions::learned && g.mlp == Mlp::gelu_tanh));
  CHECK((g.qkv_bias && g.out_bias && g.mlp_bias && g.tied_embeddings && !g.qk_norm));
  CHECK((g.head_dim == 16 && g.hidden_dim == 256 && g.max_seq_len == kHfMaxContext));
  const ModelConfig l3 = hf_config(R"({"architectures":["LlamaForCausalLM"],"hidden_size":64,"num_hidden_layers":2,)"
                                   R"("num_attention_heads":4,"intermediate_size":96,"vocab_size":300,"attention_bias":true,)"
                                   R"("rope_scaling":{"rope_type":"llama3","factor":32.0,"low_freq_factor":1.0,)"
                                   R"("high_freq_factor":4.0,"original_max_position_embeddings":8192}})");
  CHECK(l3.rope_scaling.type == RopeScaling::Type::llama3);
  CHECK((l3.rope_scaling.factor == 32.0f && l3.rope_scaling.original_context == 8192));
  CHECK((l3.qkv_bias && l3.out_bias));  // Llama's attention_bias covers q, k, v and o
}

TEST_CASE("tensor names follow transformers' Llama") {
  CHECK(hf_llama_tensor_name("tok_embeddings.weight") == "model.embed_tokens.weight");
  CHECK(hf_llama_tensor_name("layers.11.attention.wk.weight") == "model.layers.11.self_attn.k_proj.weight");
  CHECK(hf_llama_tensor_name("layers.0.feed_forward.w1.weight") == "model.layers.0.mlp.gate_proj.weight");
  CHECK(hf_llama_tensor_name("layers.0.feed_forward.w3.weight") == "model.layers.0.mlp.up_proj.weight");
  CHECK(hf_llama_tensor_name("layers.3.ffn_norm.weight") == "model.layers.3.post_attention_layernorm.weight");
  CHECK(hf_llama_tensor_name("output.weight") == "lm_head.weight");
  CHECK(hf_llama_tensor_name("layers.0.attention.q_norm.weight") == "model.layers.0.self_attn.q_norm.weight");
  CHECK(hf_llama_tensor_name("layers.2.attention.wv.bias") == "model.layers.2.self_attn.v_proj.bias");
  CHECK_THROWS_AS(hf_llama_tensor_name("pos_embeddings.weight"), ModelError);
}
