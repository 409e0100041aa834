// ESLint (flat config) for rankset's JavaScript: the page assets and their node tests.
// `npm install --no-package-lock` (package.json pins the versions), then
// `npx eslint "src/rankset/**/assets/*.js" "tests/pages/js/*.js"`; .ci/run does both.
import { createRequire } from "node:module";

import js from "@eslint/js";
import globals from "globals";

const require = createRequire(import.meta.url);
// The names dashboard_core.js exports: the other dashboard files run in its scope.
const core = Object.fromEntries(
  Object.keys(require("./src/rankset/pages/assets/dashboard_core.js")).map((name) => [
    name,
    "readonly",
  ]),
);

export default [
  js.configs.recommended,
  {
    files: ["src/rankset/**/assets/*.js"],
    languageOptions: {
      ecmaVersion: 2020,
      sourceType: "script",
      globals: { ...globals.browser },
    },
  },
  {
    // Runs in the browser and under node (module.exports at its end).
    files: ["src/rankset/pages/assets/dashboard_core.js"],
    languageOptions: { globals: { ...globals.browser, ...globals.node } },
  },
  {
    files: [
      "src/rankset/pages/assets/dashboard_page.js",
      "src/rankset/pages/assets/dashboard_views.js",
    ],
    languageOptions: {
      globals: { ...globals.browser, ...core, vegaEmbed: "readonly" },
    },
  },
  {
    // Templates: Python puts a value where a RANKSET_ name stands.
    files: ["src/rankset/pages/assets/dashboard.js", "src/rankset/charts/assets/*.js"],
    languageOptions: {
      globals: {
        ...globals.browser,
        RANKSET_SCRIPTS: "readonly",
        RANKSET_VENDORED: "readonly",
        RANKSET_ID: "readonly",
        RANKSET_SPEC: "readonly",
        RANKSET_OPTIONS: "readonly",
        RANKSET_WAIT_MS: "readonly",
        RANKSET_MISSING: "readonly",
        vegaEmbed: "readonly",
      },
    },
  },
  {
    files: ["tests/pages/js/*.js"],
    languageOptions: {
      ecmaVersion: 2022,
      sourceType: "commonjs",
      globals: { ...globals.node },
    },
  },
];
