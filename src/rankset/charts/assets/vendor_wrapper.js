/*
 * Around the vendored Vega, Vega-Lite and vega-embed builds (the placeholder in capitals
 * below): they run inside a function whose define, module, exports and require are
 * undefined, so that they set their globals even where a page has a module loader
 * (RequireJS in the classic Jupyter notebook), which would otherwise take them.
 */
/* eslint no-unused-vars: ["error", { "args": "none" }] -- the parameters hide the loader */
(function (define, module, exports, require) {
RANKSET_VENDORED;
}).call(typeof globalThis !== 'undefined' ? globalThis : window);
