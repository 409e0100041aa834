/*
 * One chart of a notebook whose library another output carries (enable_offline): waits
 * for that output's vegaEmbed, for a while, then draws, or says what is missing. Its
 * element is found as the script's previous sibling first: JupyterLab may run an output's
 * script before the output is attached to the document. The placeholders are JSON.
 */
(function () {
var script = document.currentScript;
var id = RANKSET_ID;
var el = script && script.previousElementSibling;
if (!el || el.id !== id) { el = document.getElementById(id); }
var spec = RANKSET_SPEC;
var opt = RANKSET_OPTIONS;
var deadline = Date.now() + RANKSET_WAIT_MS;
(function draw() {
  if (typeof window.vegaEmbed === 'function') {
    window.vegaEmbed(el, spec, opt).catch(console.error);
  } else if (Date.now() < deadline) {
    setTimeout(draw, 50);
  } else if (el) {
    el.textContent = RANKSET_MISSING;
  }
})();
})();
