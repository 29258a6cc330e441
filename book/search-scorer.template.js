// The book's search ranking: Sphinx's default weights (searchtools.js), plus one rule that puts the page a
// reader is looking for first. A query that names a public function, written with spaces or underscores
// ("local invertibility", "polytope_bias"), ranks that function's API page first; a query that names a
// deprecated function ("exact verdict") ranks the page of its replacement first. The table of names is
// written by book/conf.py from the package (RFNB_SEARCH_NAMES below), so it follows the code.
var RFNB_SEARCH_NAMES = __RFNB_SEARCH_NAMES__;
var Scorer = {
  score: (result) => {
    const [docname, , , , score] = result;
    const q = new URLSearchParams(window.location.search).get("q") || "";
    const key = q.toLowerCase().replace(/^rf\./, "").replace(/[^a-z0-9]+/g, " ").trim();
    const target = RFNB_SEARCH_NAMES[key];
    return target && docname === target ? score + 1000 : score;
  },
  objNameMatch: 11,
  objPartialMatch: 6,
  objPrio: { 0: 15, 1: 5, 2: -5 },
  objPrioDefault: 0,
  title: 15,
  partialTitle: 7,
  term: 5,
  partialTerm: 2,
};
