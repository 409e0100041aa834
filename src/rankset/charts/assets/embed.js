/* One chart of a page: draws its spec into its element (the placeholders: JSON). */
vegaEmbed(document.getElementById(RANKSET_ID), RANKSET_SPEC, RANKSET_OPTIONS).catch(console.error);
