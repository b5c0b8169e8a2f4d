// The small random-weight model the JS model tests share: a config (2 layers, 4 heads over 2 key/value heads,
// context 32) and lookback's byte-level BPE with no merges (<s>, </s> and the 256 bytes). Not a test file.

export const CONFIG = {
  arch: 'test', dim: 24, n_layers: 2, n_heads: 4, n_kv_heads: 2, head_dim: 6, hidden_dim: 40, vocab_size: 258,
  max_seq_len: 32, norm_eps: 1e-5, rope_theta: 10000, rope_layout: 'adjacent', qk_norm: true, mlp: 'swiglu',
  tied_embeddings: false, bos_id: 0, eos_id: 1,
};

export const TOKENIZER = JSON.stringify({ type: 'byte-bpe', version: 1, vocab_size: 258, bos_id: 0, eos_id: 1, merges: [] });
