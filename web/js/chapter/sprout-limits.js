// The "What Sprout can and cannot do" box: its example stories come from the model card (`showcase`: every story of
// shared/probes/showcase.json with the verdict `npm run eval` computed), the first two Sprout reads well and the
// first two it misreads; each gets a verdict computed now by the model on the page, and a click loads it into the
// box's next-token widget. A story whose verdict differs from the card's says so in words. Not a widget; the
// figures in the box's prose are card slots (card-slots.js).

const ordinal = (n) => `${n}${n % 100 >= 11 && n % 100 <= 13 ? 'th' : ['th', 'st', 'nd', 'rd'][n % 10] ?? 'th'}`;
const q = (t) => JSON.stringify(t);

// Sprout's verdict on one story: its top guess, and where the answer's first token (as it follows a space) ranks.
export async function verdictFor(models, text, answer) {
  const [want, ...more] = await models.call('sprout', 'encode', [` ${answer}`, { bos: false }]);
  const { info } = await models.describe('sprout');
  const all = await models.call('sprout', 'next', [text, { topK: info.config.vocab_size }]);
  const rank = all.findIndex((t) => t.id === want) + 1;
  return { top: all[0], rank, p: all[rank - 1]?.p ?? 0, hit: rank === 1, pieces: 1 + more.length };
}

export function verdictText({ top, rank, p, hit, pieces = 1 }, answer, kind) {
  const said = hit
    ? `Sprout: ${q(top.token)} at ${top.p.toFixed(2)}, the right word.`
    : `Sprout: ${q(top.token)} at ${top.p.toFixed(2)}; ${q(` ${answer}`)} comes ${ordinal(rank)} (${p < 0.005 ? 'almost 0' : p.toFixed(2)}).`;
  const changed = hit && kind === 'miss' ? ' Listed as a misread, but the model on this page now gets it right.'
    : !hit && kind === 'hit' ? ' Listed as read well, but the model on this page now gets it wrong.' : '';
  const split = pieces > 1 ? ` (${q(answer)} is ${pieces} tokens; this checks the first.)` : '';
  return said + split + changed;
}

// Fills the two lists of the box from the card's showcase stories: the first `n` of each verdict, in the card's order.
export function listStories(box, stories, n = 2) {
  for (const list of box.querySelectorAll('ul.picks[data-kind]')) {
    const hit = list.dataset.kind === 'hit';
    const items = stories.filter((s) => s.hit === hit).slice(0, n).map(({ text, answer }) => {
      const li = box.ownerDocument.createElement('li');
      const b = li.appendChild(box.ownerDocument.createElement('button'));
      Object.assign(b, { type: 'button', className: 'pick', textContent: text });
      b.dataset.answer = answer;
      const out = box.ownerDocument.createElement('span');
      Object.assign(out, { className: 'verdict' });
      out.setAttribute('aria-live', 'polite');
      li.append(' ', out);
      return li;
    });
    if (!items.length) {
      const li = box.ownerDocument.createElement('li');
      li.className = 'none';
      li.textContent = stories.length ? `None of the ${stories.length} example stories the card measured.` : 'The model card lists no example stories.';
      items.push(li);
    }
    list.replaceChildren(...items);
  }
}

export function sproutLimits(doc, models) {
  const box = doc.getElementById('sprout-limits');
  const widget = doc.getElementById('w-next-token');
  if (!box) return;
  box.addEventListener('click', (e) => {
    const b = e.target.closest('button.pick');
    if (!b || !widget) return;
    widget.setAttribute('text', b.textContent.trim());
    widget.scrollIntoView({ block: 'nearest', behavior: 'smooth' });
  });
  const run = async () => {
    const card = await models.card('sprout').catch(() => null);
    listStories(box, card?.showcase?.stories ?? []);
    for (const b of box.querySelectorAll('button.pick')) {
      const item = b.closest('li');
      const out = item.querySelector('.verdict');
      const kind = b.closest('[data-kind]').dataset.kind;
      try {
        const v = await verdictFor(models, b.textContent.trim(), b.dataset.answer);
        out.textContent = verdictText(v, b.dataset.answer, kind);
        Object.assign(item.dataset, { verdict: v.hit ? 'hit' : 'miss', expected: kind, top: v.top.token });
      } catch (err) {
        out.textContent = `Could not compute: ${err.message}`;
        item.dataset.verdict = 'error';
        console.error(err);
      }
    }
    box.dataset.state = 'ready';
  };
  // computed once the box comes near the screen (Sprout is loaded for the widget above it by then)
  const seen = new IntersectionObserver((entries) => {
    if (entries.some((e) => e.isIntersecting)) {
      seen.disconnect();
      run();
    }
  }, { rootMargin: '200px 0px' });
  seen.observe(box);
}
