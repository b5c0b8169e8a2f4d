// Numbers the chapter's sections 1..N in page order, at run time: the number in each heading, the contents list
// (built from the headings, so its labels are the headings' words) and every cross-reference in the prose
// (<a class="ref" href="#section-id">, read "section 6"; data-form="Section" at a sentence's start, "number" for
// a bare number). Adding or moving a section needs no text edit. Not the contents bar's tracking (contents.js).

export function numberSections(doc = document) {
  const sections = [...doc.querySelectorAll('main > section[id]')].filter((s) => s.querySelector(':scope > h2'));
  const number = new Map(sections.map((s, i) => [s.id, String(i + 1)]));
  const list = doc.querySelector('nav.contents ol');
  list?.replaceChildren();
  for (const s of sections) {
    const h = s.querySelector(':scope > h2');
    let num = h.querySelector('.secnum');
    if (!num) {
      num = doc.createElement('span');
      num.className = 'secnum';
      h.prepend(num, ' ');
    }
    num.textContent = number.get(s.id);
    if (!list) continue;
    const title = [...h.childNodes].filter((n) => n !== num).map((n) => n.textContent).join('').trim();
    const li = doc.createElement('li');
    li.innerHTML = `<a data-section=""><span class="num"></span> <span class="label"></span><span class="read-note sr-only"></span></a>`;
    const a = li.firstChild;
    a.href = `#${s.id}`;
    a.dataset.section = s.id;
    a.querySelector('.num').textContent = number.get(s.id);
    a.querySelector('.label').textContent = title;
    list.append(li);
  }
  for (const ref of doc.querySelectorAll('a.ref')) {
    const n = number.get(ref.getAttribute('href')?.replace(/^#/, ''));
    if (!n) {
      console.error(`a cross-reference to a section that is not on the page: ${ref.getAttribute('href')}`);
      continue;
    }
    ref.textContent = ref.dataset.form === 'number' ? n : `${ref.dataset.form === 'Section' ? 'Section' : 'section'} ${n}`;
  }
}
