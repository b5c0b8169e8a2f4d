// The counterfactual widget's stories (content/counterfactual-stories.json) and its edits. Each story names an object early and ends where the
// object is the answer; tests/js/counterfactual-examples.test.mjs checks against the shipped model that Sprout's
// top next token is that object (so a retrain that loses it fails loudly). editStory applies one edit the way
// the widget does. Pure text: no model, no numbers.

export { default as EXAMPLES } from './content/counterfactual-stories.js';

export const EDITS = ['swap', 'remove', 'neutral'];

const whole = (word) => new RegExp(`\\b${word.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\b`, 'g');

// The story after one edit: 'swap' puts `replacement` for every mention of `word`, 'remove' deletes every
// mention (and one space before it), 'neutral' is a swap of a word that should not matter.
export function editStory(story, kind, word, replacement = '') {
  if (!word) return story;
  if (kind === 'remove') return story.replace(new RegExp(` ?${whole(word).source}`, 'g'), '');
  return story.replace(whole(word), replacement);
}
