// The counterfactual widget's stories and its edits. Each story names an object early and ends where the
// object is the answer; tests/js/counterfactual-examples.test.mjs checks against the shipped model that Sprout's
// top next token is that object (so a retrain that loses it fails loudly). editStory applies one edit the way
// the widget does. Pure text: no model, no numbers.

export const EXAMPLES = [
  {
    id: 'doll', answer: 'doll', swap: 'kite', neutral: ['park', 'beach'],
    story: 'Mia took her doll to the park. She pushed it on the swings and showed it the ducks. Then she went to the '
      + "shop with her dad, and after that to her grandma's house for tea. At night, Mia put the",
  },
  {
    id: 'kite', answer: 'kite', swap: 'drum', neutral: ['hill', 'farm'],
    story: 'Tom found a red kite in the garden. He ran with it to the hill. Then he went to the river with his mum, '
      + 'and after that they had soup at home. Before bed, Tom looked at his',
  },
  {
    id: 'boat', answer: 'boat', swap: 'lamp', neutral: ['yard', 'garden'],
    story: 'Ben had a little boat. He took the boat to the pond. Then he ate lunch with his sister and played a game '
      + 'in the yard. At night, Ben put the',
  },
];

export const EDITS = ['swap', 'remove', 'neutral'];

const whole = (word) => new RegExp(`\\b${word.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\b`, 'g');

// The story after one edit: 'swap' puts `replacement` for every mention of `word`, 'remove' deletes every
// mention (and one space before it), 'neutral' is a swap of a word that should not matter.
export function editStory(story, kind, word, replacement = '') {
  if (!word) return story;
  if (kind === 'remove') return story.replace(new RegExp(` ?${whole(word).source}`, 'g'), '');
  return story.replace(whole(word), replacement);
}
