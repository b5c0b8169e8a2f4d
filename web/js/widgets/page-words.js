// The API's error messages in the page's words: they advise API options ("pass { window: true }") a reader of the
// page cannot pass, as the CLI says its flags instead (web/js/cli/lookback.mjs); here they say what to do in the
// page. Used by every widget's error line (widget-kit.js showError). Not the messages themselves (the core's).
const PAGE_WORDS = [
  [/; pass \{ window: true \} to keep only the last (\d+) tokens \(the start mark stays first\), or shorten the text/g,
    '; shorten the text: this view reads at most $1 tokens at once'],
  [/With model bytes, pass \{ tokenizer \} too \(and \{ config \} when the format has one\)/g,
    'Choose its tokenizer file too (and its config.json when the format has one)'],
  [/\{ window: true \}/g, 'a shorter text'],
];

export const inPageWords = (message) => PAGE_WORDS.reduce((m, [api, words]) => m.replace(api, words), String(message));
