// The example texts of the model widgets, each chosen to show a habit of attention: a pronoun and the name it
// means, a made-up name said twice, an object recalled much later. Plain data; not a custom element.

export const EXAMPLES = [
  { id: 'pronoun', label: 'a pronoun and its name',
    text: 'Tom went to the market with his mother. Tom whistled all the way, and then he bought a red apple.' },
  { id: 'made-up', label: 'a made-up name said twice',
    text: 'In the forest lived a tiny creature named Zibblor. Every morning, Zibblor sang to the birds.' },
  { id: 'recall', label: 'a recalled object',
    text: 'Mia took her doll to the park. She pushed it on the swings and showed it the ducks. Then she went to '
      + "the shop with her dad, and after that to her grandma's house for tea. At night, Mia put the doll" },
];
