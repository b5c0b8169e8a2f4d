// A window model's safetensors file (float32) for a config { window, embed_dim, hidden_dim, vocab_size }, each
// weight given by value(i) (i: its index in the file's data), for the tests of hostile inputs. Not a test file.
export function windowWeights({ window: W, embed_dim: E, hidden_dim: N, vocab_size: V }, value) {
  const shapes = { 'embed.weight': [V, E], 'hidden.weight': [N, W * E], 'hidden.bias': [N], 'out.weight': [V, N], 'out.bias': [V] };
  const header = {};
  let at = 0;
  for (const [name, shape] of Object.entries(shapes)) {
    const bytes = 4 * shape.reduce((a, b) => a * b, 1);
    header[name] = { dtype: 'F32', shape, data_offsets: [at, at + bytes] };
    at += bytes;
  }
  let text = JSON.stringify(header);
  text += ' '.repeat((8 - (text.length % 8)) % 8);
  const out = new Uint8Array(8 + text.length + at);
  new DataView(out.buffer).setBigUint64(0, BigInt(text.length), true);
  out.set(new TextEncoder().encode(text), 8);
  const data = new Float32Array(out.buffer, 8 + text.length);
  for (let i = 0; i < data.length; i++) data[i] = value(i);
  return out;
}
