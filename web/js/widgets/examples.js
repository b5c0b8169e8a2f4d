// The example texts of the model widgets, each chosen to show a habit of attention: a pronoun and the name it
// means, a made-up name said twice, an object recalled much later. The texts are content/examples.json; this
// module names them for the widgets. Plain data; not a custom element.
export { default as EXAMPLES } from './content/examples.js';
