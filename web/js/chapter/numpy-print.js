// What Python prints for the chapter's listings, rebuilt from numbers the core computed: numpy arrays under
// np.set_printoptions(precision=p, suppress=True, floatmode="fixed"), shape tuples, and fixed-point fields.
// A printer also keeps every number it printed, unrounded, in order (the tests compare them with Python's).
// Not a general numpy repr: 1-D and 2-D float arrays short enough for one line per row.

// numpy's fixed floatmode: every element with p decimals, right-aligned to the widest (a minus sign included).
function fixedCells(values, precision) {
  const cells = Array.from(values, (x) => x.toFixed(precision));
  const width = Math.max(...cells.map((c) => c.length));
  return cells.map((c) => c.padStart(width));
}

// An array of `shape` ([n] or [rows, cols]) as numpy prints it.
export function arrayText(values, shape, precision) {
  const cells = fixedCells(values, precision);
  if (shape.length === 1) return `[${cells.join(' ')}]`;
  const [rows, cols] = shape;
  const lines = Array.from({ length: rows }, (_, r) => `[${cells.slice(r * cols, (r + 1) * cols).join(' ')}]`);
  return `[${lines.join('\n ')}]`;
}

// A Python tuple of ints, as print() shows it: (4, 4), (4,).
export const tupleText = (shape) => (shape.length === 1 ? `(${shape[0]},)` : `(${shape.join(', ')})`);

// The numbers in a piece of printed text, as the tests read them from Python's output too.
export const NUMBER = /-?\d+(?:\.\d+)?/g;

// A piece of a printed line: an array ({ data, shape }) as numpy prints it, a field ({ field, width, precision })
// as an f-string {x:width.precisionf} does, or text as it is. Returns [text, the numbers in it, unrounded].
function piece(p, precision) {
  if (typeof p === 'string') return [p, (p.match(NUMBER) ?? []).map(Number)];
  if ('field' in p) return [p.field.toFixed(p.precision ?? precision).padStart(p.width ?? 0), [p.field]];
  return [arrayText(p.data, p.shape, p.precision ?? precision), Array.from(p.data, Number)];
}

// Lines as print() writes them, and every number in them, unrounded and in order.
export function printer(precision = 3) {
  const lines = [];
  const values = [];
  const line = (pieces, sep) => {
    lines.push(pieces.map((p) => {
      const [text, numbers] = piece(p, precision);
      values.push(...numbers);
      return text;
    }).join(sep));
  };
  return {
    lines,
    values,
    /** print(*parts): the parts joined by spaces */
    print: (...parts) => line(parts, ' '),
    /** print(f"..."): the pieces joined as they are */
    printf: (...pieces) => line(pieces, ''),
    get text() {
      return `${lines.join('\n')}\n`;
    },
  };
}
