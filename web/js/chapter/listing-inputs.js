// The inputs of a numpy listing, read from its source: every statement `name = literal` or `name[i] = literal`
// whose right side is a number, a (nested) list of numbers, or np.array(list), so the page computes from the
// numbers the reader sees in the listing and a change to them needs no second edit.
// Not a Python parser: one assignment per statement, literals only (comments allowed).

const START = /^([A-Za-z_]\w*(?:\[\d+\])?)\s*=\s*(np\.array\()?\s*(?=[-\d[(.])/;

// The text of a literal that starts at `from` in `text`: through the bracket that closes it, or to the end of
// a plain number.
function literalAt(text, from) {
  if (text[from] !== '[') return /^[-+]?[\d.]+(?:e[-+]?\d+)?/i.exec(text.slice(from))?.[0];
  let depth = 0;
  for (let i = from; i < text.length; i++) {
    if (text[i] === '[') depth++;
    else if (text[i] === ']' && --depth === 0) return text.slice(from, i + 1);
  }
  return undefined;
}

export function listingInputs(source) {
  const text = source.split('\n').map((l) => l.replace(/#.*$/, '')).join('\n');  // comments off (no '#' in literals)
  const inputs = {};
  let offset = 0;
  for (const line of text.split('\n')) {
    const m = START.exec(line);
    if (m && !/^\s/.test(line)) {
      const raw = literalAt(text, offset + m[0].length);
      if (raw !== undefined) {
        try {
          inputs[m[1]] = JSON.parse(raw.replace(/\s+/g, '').replace(/,\]/g, ']'));
        } catch { /* not a literal of numbers: not an input */ }
      }
    }
    offset += line.length + 1;
  }
  return inputs;
}

// An input the listing must have, with the name of the listing in the error when it does not.
export function need(inputs, name, file) {
  if (!(name in inputs)) throw new Error(`listing ${file}: no \`${name} = …\` with numbers in it`);
  return inputs[name];
}
