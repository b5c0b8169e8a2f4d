// lookback/figures: the chapter's pictures as standalone SVG strings, for Node, the command line and the page
// alike (the page's widgets draw with these same functions). Browser- and Node-safe: no DOM, no core; the
// numbers come in from the JS API (or the page's worker). Not a rasteriser: the CLI turns SVG into PNG.
export { weightColour, weightRGB, weightLab, signedColour, luminance, deltaE, inkOn, PALE_LUMINANCE } from './colour.js';
export { tokenText, tokenLabel } from './tokens.js';
export { headMap, strip, layerHeads, headsGrid, headThumb, headRows, habitLine, headName } from './attention.js';
export { habitsMap, cardHabits } from './habits.js';
export { lossCurve, costPlot, bytesText, countText } from './plots.js';
export { flowFigure, computeFlow, flowInputs, rowsOf } from './flow.js';
