// Renders every element with a data-tex attribute as display math with KaTeX (copied from npm into
// web/vendor by the build). Not a widget: static formulas only.
import katex from '../../vendor/katex/katex.mjs';

export function renderMath(root = document) {
  for (const el of root.querySelectorAll('[data-tex]')) {
    katex.render(el.dataset.tex, el, { displayMode: !el.matches('span'), throwOnError: true, output: 'htmlAndMathml' });
  }
}
