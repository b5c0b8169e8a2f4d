// The "use your own model" box a model widget embeds: drop files on it or pick them (the files of any format the
// core reads: op 'modelFormats' lists them), or go back to Sprout. It asks the controller (op 'useModel') to make
// them the page's current model, so every model widget switches; the loader's error is shown here. Not the
// loader and not the registry (web/js/chapter/models.js).
import { esc } from './widget-kit.js';
import { MAX_FILE_BYTES, accepted, hint, modelSource } from './model-files.js';

export const PICKER_CSS = `
details.own { margin-top: .7rem; }
details.own summary { cursor: pointer; color: var(--lb-muted); }
.drop { border: 2px dashed var(--lb-rule); border-radius: 8px; padding: .6rem .8rem; margin-top: .4rem; }
.drop.over { border-color: var(--lb-accent); background: color-mix(in srgb, var(--lb-accent) 10%, transparent); }
.drop .model-error { color: var(--lb-accent-2); font-weight: 600; }
`;

// Builds the box inside `widget` (a ModelWidget); returns the element.
export function modelPicker(widget) {
  const box = document.createElement('details');
  box.className = 'own';
  box.innerHTML = `<summary>Use your own model</summary>
    <div class="drop">
      <p class="hint">Every widget that uses Sprout can use another small language model instead, if you have its
        files (<span class="formats"></span>). Drop them here or pick them. They stay on your computer.</p>
      <div class="row">
        <label class="pick"><span class="sr-only">Model files</span><input type="file" multiple></label>
        <button type="button" class="sprout">Back to Sprout</button>
      </div>
      <p class="model-status" role="status"></p>
      <p class="model-error" role="alert"></p>
    </div>`;
  const drop = box.querySelector('.drop');
  const input = box.querySelector('input[type=file]');
  // the formats the core reads (the hint, the picker's accept list, the grouping of dropped files): asked now, and
  // again when files are dropped if that failed
  let formats = null;
  const knownFormats = () => {
    formats ??= widget.ask('modelFormats', [], 'modelFormats', { keep: true }).then(({ formats: list }) => {
      box.querySelector('.formats').textContent = hint(list);
      input.accept = accepted(list);
      return list;
    });
    formats.catch(() => { formats = null; });
    return formats;
  };
  knownFormats().catch(() => {});
  const status = box.querySelector('.model-status');
  const error = box.querySelector('.model-error');
  const use = async (source, label) => {
    error.textContent = '';
    status.textContent = source ? `Loading ${label}…` : 'Going back to Sprout…';
    try {
      const now = await widget.ask('useModel', [source, label], 'useModel', { keep: true });
      status.innerHTML = `Every model widget now uses <b>${esc(now.label)}</b>.`;
    } catch (err) {
      status.textContent = '';
      error.textContent = `Could not load the model: ${err.message}`;
    }
  };
  // A file over the limit of a format read whole is refused from its size, before it is read (a GGUF is read in
  // parts, as the loader needs them: its limit is the model's memory, which the loader checks); one the browser
  // cannot read is said so here, like a file that is not a model. The files go to the loader as they are (File
  // objects, read in parts by the worker).
  const take = async (fileList) => {
    let picked;
    try {
      const list = await knownFormats();
      const streams = new Set(list.filter((f) => f.streams).map((f) => f.weights));
      const big = [...fileList].find((f) => f.size > MAX_FILE_BYTES && ![...streams].some((e) => f.name.toLowerCase().endsWith(e)));
      if (big) throw new Error(`${big.name} is ${big.size} bytes; the most a model file may hold is ${MAX_FILE_BYTES} (1 GiB).`);
      // each file's first byte read now: one the browser cannot read (moved, a folder, no permission) is named here.
      // A file removed since it was picked has size 0 and its parts read as no bytes; read whole, it fails (an
      // empty file reads whole at no cost)
      const readable = async (f) => {
        try {
          if ((await f.slice(0, 1).arrayBuffer()).byteLength === 0) await f.arrayBuffer();
        } catch (err) {
          throw new Error(`${f.name} could not be read (${err.message}).`, { cause: err });
        }
        return { name: f.name, bytes: f };
      };
      picked = modelSource(await Promise.all([...fileList].map(readable)), list);
    } catch (err) {
      status.textContent = '';
      error.textContent = err.message;
      return;
    }
    await use(picked.source, picked.label);
  };
  input.addEventListener('change', () => take(input.files).finally(() => { input.value = ''; }));
  box.querySelector('.sprout').addEventListener('click', () => use(null, 'Sprout'));
  drop.addEventListener('dragover', (e) => {
    e.preventDefault();
    drop.classList.add('over');
  });
  drop.addEventListener('dragleave', () => drop.classList.remove('over'));
  drop.addEventListener('drop', (e) => {
    e.preventDefault();
    drop.classList.remove('over');
    box.open = true;
    take(e.dataTransfer.files);
  });
  return box;
}
