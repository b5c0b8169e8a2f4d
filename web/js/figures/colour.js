// The one colour scale for attention weights (and every other share in [0, 1]) and a diverging scale for signed
// numbers, both straight lines in OKLab, so equal steps in value look like equal steps in colour; lightness falls
// evenly from near-white at 0 to deep blue at 1. Also the sRGB relative luminance the tests hold the scale to.
// Not a palette for the page's chrome (widget-kit's CSS variables).

// OKLab [L, a, b] from OKLCH (lightness, chroma, hue in degrees)
const lch = (L, C, h) => [L, C * Math.cos((h * Math.PI) / 180), C * Math.sin((h * Math.PI) / 180)];

const ZERO = lch(0.975, 0.01, 250);  // near-white: weight 0
const HALF = lch(0.6375, 0.13, 255);  // lightness halfway, the most colourful point
const ONE = lch(0.3, 0.12, 268);      // deep blue: weight 1
const NEGATIVE = lch(0.48, 0.15, 32); // brick red: the most negative number of a matrix
const POSITIVE = lch(0.46, 0.1, 185); // teal: the most positive (not the weights' blue)

/** The luminance (WCAG relative luminance) the colour of a weight of 0.47 stays below: such a weight never looks pale. */
export const PALE_LUMINANCE = 0.35;

function oklabToLinear([L, a, b]) {
  const l = (L + 0.3963377774 * a + 0.2158037573 * b) ** 3;
  const m = (L - 0.1055613458 * a - 0.0638541728 * b) ** 3;
  const s = (L - 0.0894841775 * a - 1.291485548 * b) ** 3;
  return [4.0767416621 * l - 3.3077115913 * m + 0.2309699292 * s,
    -1.2684380046 * l + 2.6097574011 * m - 0.3413193965 * s,
    -0.0041960863 * l - 0.7034186147 * m + 1.707614701 * s];
}

const encode = (x) => {
  const c = Math.min(1, Math.max(0, x));
  return c <= 0.0031308 ? 12.92 * c : 1.055 * c ** (1 / 2.4) - 0.055;
};
const hex = (lab) => `#${oklabToLinear(lab).map((x) => Math.round(255 * encode(x)).toString(16).padStart(2, '0')).join('')}`;
const mix = (p, q, t) => p.map((x, i) => x + (q[i] - x) * t);
const clamp01 = (x) => (Number.isFinite(x) ? Math.min(1, Math.max(0, x)) : 0);

/** the OKLab colour of a weight in [0, 1] (clamped) */
export function weightLab(w) {
  const t = clamp01(w);
  return t < 0.5 ? mix(ZERO, HALF, 2 * t) : mix(HALF, ONE, 2 * t - 1);
}

/** '#rrggbb' of a weight in [0, 1] (clamped) */
export const weightColour = (w) => hex(weightLab(w));

const RGB = Array.from({ length: 256 }, (_, i) => {
  const h = weightColour(i / 255);
  return [1, 3, 5].map((k) => Number.parseInt(h.slice(k, k + 2), 16));
});

/** [r, g, b] bytes of a weight in [0, 1], for drawing on a canvas (the same scale, 256 steps) */
export const weightRGB = (w) => RGB[Math.round(clamp01(w) * 255)];

/** the OKLab colour of a signed number, scaled by the largest magnitude `max` of its matrix (0: the middle) */
export function signedLab(x, max) {
  const t = max > 0 && Number.isFinite(x) ? Math.max(-1, Math.min(1, x / max)) : 0;
  return t < 0 ? mix(ZERO, NEGATIVE, -t) : mix(ZERO, POSITIVE, t);
}

/** '#rrggbb' of a signed number scaled by its matrix's largest magnitude */
export const signedColour = (x, max) => hex(signedLab(x, max));

/**
 * the text colour that reads on a cell of OKLab colour `lab`: white or black, whichever stands out more (so every
 * colour of the scales gets a WCAG contrast of at least 4.5; never the figure's ink, which a page's theme recolours)
 */
export function inkOn(lab) {
  const y = luminance(hex(lab));
  return 1.05 / (y + 0.05) >= (y + 0.05) / 0.05 ? '#ffffff' : '#000000';
}

/** WCAG relative luminance of '#rrggbb' */
export function luminance(colour) {
  const [r, g, b] = [1, 3, 5].map((i) => Number.parseInt(colour.slice(i, i + 2), 16) / 255)
    .map((c) => (c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4));
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}

/** distance in OKLab between two OKLab colours (about 0.02 is a just-noticeable difference) */
export const deltaE = (p, q) => Math.hypot(p[0] - q[0], p[1] - q[1], p[2] - q[2]);
