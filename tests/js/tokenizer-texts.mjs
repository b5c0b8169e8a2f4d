// Varied test strings for comparing tokenizers: n strings of 1 to 8 parts (emoji, CJK, Arabic and Hebrew, code,
// whitespace runs, decomposed accents, contractions, digits), from a seeded generator. Not a tokenizer.
export const PARTS = ['Hello', ' world', "it's", " I'LL", "'S", ' 12345', '3.14159', '  ', '   ', '\t', '\n', '\n\n', ' \n ', '\r\n',
  '日本語のテキスト', '中文', '한국어', 'مرحبا بالعالم', 'שלום', '😀', '👩‍👩‍👧', '🇫🇷', 'café', 'naïve', 'e\u0301', 'Ωmega',
  'x = f(y) + 1;', 'def foo():\n    return 0', '{"a": [1, 2]}', '...', '!!', '—', '×', '²', 'ǅ', '\u00a0', '١٢٣', 'ⅷ', 'ſt',
  'don’t', '<', '>', 'a', 'Z', '0', 'ＡＢＣ', '\u3000', '    '];

export function texts(n, seed, parts = PARTS) {
  let s = seed;
  const next = () => { s = (s * 1103515245 + 12345) % 2147483648; return s / 2147483648; };
  return Array.from({ length: n }, () => Array.from({ length: 1 + Math.floor(next() * 8) }, () => parts[Math.floor(next() * parts.length)]).join(''));
}

// Rarer spaces, where regex engines disagree on \s: Unicode's White_Space (the tokenizers library's Rust engine,
// llama.cpp, lookback) holds NEL U+0085 and not BOM U+FEFF; JavaScript's \s holds U+FEFF and not U+0085.
export const RARE_SPACES = ['\u0085', '\ufeff', '\u2028', '\u2029', '\u200b', '\u000b', '\u000c', '\u1680', ' \u0085 ', 'a\ufeffb', '  \u0085', '  \ufeff'];
