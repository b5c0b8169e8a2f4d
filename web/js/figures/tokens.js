// Tokens as the chapter shows them: a space as ␣ (so a leading space is visible), a line break as ↵, the start
// mark as it comes (◆); every figure labels rows, columns and chips with this text. Not the tokenizer.

/** a token's text for display */
export const tokenText = (text) => String(text).replace(/ /g, '\u2423').replace(/\n/g, '\u21b5');

/** a token's text with its position, for titles and tables: `"␣cat" (3)` */
export const tokenLabel = (text, i) => `"${tokenText(text)}" (${i})`;
