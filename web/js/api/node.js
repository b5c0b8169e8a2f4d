// The Node entry of the lookback package (package.json "exports", condition "node"): the same API as
// web/js/api/index.js, with the Node file access installed up front. Not used in browsers or their bundles.
import './node-host.js';

export * from './index.js';
