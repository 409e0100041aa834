/*
 * The report's charts under its Content-Security-Policy: Vega compiles expressions with the
 * Function constructor, which the policy forbids (no 'unsafe-eval'); with `ast: true`
 * vega-embed uses the bundled expression interpreter instead. Forced here, after the
 * bundle, so that every chart of the page draws, whatever options its fragment passes.
 */
(function () {
  var embed = window.vegaEmbed;
  if (typeof embed !== "function") { return; }
  var wrapped = function (el, spec, options) {
    return embed(el, spec, Object.assign({}, options || {}, { ast: true }));
  };
  Object.assign(wrapped, embed);
  window.vegaEmbed = wrapped;
})();
