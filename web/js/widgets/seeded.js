// A small seeded generator (mulberry32) and standard normals (Box-Muller), for reproducible random inputs: the
// widgets' and the chapter's numpy listings' (web/listings/scaling.py draws the same numbers in numpy).
// Pure: no DOM, so Node imports it too. Not a cryptographic or statistically strong generator.
export function seeded(seed) {
  let a = seed >>> 0;
  const uniform = () => {
    a = (a + 0x6D2B79F5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const normal = () => {
    let u = 0;
    while (u === 0) u = uniform();
    return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * uniform());
  };
  return { uniform, normal };
}
