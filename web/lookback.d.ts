// Type declarations of web/lookback.js (package export "lookback/widgets"): importing it defines every
// <lookback-*> element and installs the compute controller.

/** Where the web/ folder is served when this module is bundled elsewhere; call before the widgets compute. */
export function configure(options?: { baseUrl?: string | URL }): void;
