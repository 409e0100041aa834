/*
 * The dashboard's script: dashboard_core.js, dashboard_page.js and dashboard_views.js run
 * in this one function, in that order, so that they share their names and set no global.
 * rankset.pages._shell puts the three files in place of the placeholder (in capitals).
 */
(function () {
  "use strict";
  RANKSET_SCRIPTS;
})();
