// The one list of lookback widgets: importing it defines every widget (each file registers its own custom
// element on import). Imported by the chapter and by web/lookback.js; the manifest (custom-elements.json), the
// browser tests and the embed page's check read this list (.scripts/widget-list.mjs). Not a controller:
// installing one is the importer's job.
import './window.js';
import './qkv-plane.js';
import './worked-example.js';
import './flow.js';
import './scaling.js';
import './mask-builder.js';
import './cost.js';
import './quiz.js';
import './review-cards.js';
import './next-token.js';
import './counterfactual.js';
import './shuffle.js';
import './code-walk.js';
import './explorer.js';
import './heads-grid.js';
import './compare.js';
import './induction.js';
import './habits.js';
import './training.js';
