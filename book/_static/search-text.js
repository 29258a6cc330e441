// The book's search snippets (Sphinx's searchtools.js cuts them from each page's text): read the formulas
// as text, without their TeX delimiters and commands, and leave out the theme's controls (launch and
// theme buttons, the page header) whose words would otherwise open a snippet.
(function () {
  const GREEK = {
    alpha: "α", beta: "β", gamma: "γ", delta: "δ", epsilon: "ε", varepsilon: "ε", theta: "θ", lambda: "λ",
    mu: "μ", pi: "π", rho: "ρ", sigma: "σ", tau: "τ", phi: "φ", varphi: "φ", psi: "ψ", omega: "ω",
    Phi: "Φ", Psi: "Ψ", Omega: "Ω", Delta: "Δ", Gamma: "Γ", Lambda: "Λ", Sigma: "Σ",
    infty: "∞", le: "≤", leq: "≤", ge: "≥", geq: "≥", ne: "≠", neq: "≠", in: "∈", subseteq: "⊆", subset: "⊂",
    cap: "∩", cup: "∪", times: "×", cdot: "·", dots: "…", ldots: "…", cdots: "…", to: "→", mapsto: "↦",
    sharp: "♯", ast: "*", emptyset: "∅", sqrt: "√", sum: "Σ", langle: "⟨", rangle: "⟩", mid: "|",
    max: "max", min: "min", sup: "sup", inf: "inf", log: "log", exp: "exp", det: "det", dim: "dim", arg: "arg",
    ker: "ker", lim: "lim", cos: "cos", sin: "sin", top: "ᵀ", prime: "′", pm: "±", approx: "≈", circ: "∘",
  };
  function readable(tex) {
    return tex
      .replace(/^\s*(\\\(|\\\[|\$\$?)/, "").replace(/(\\\)|\\\]|\$\$?)\s*$/, "")
      .replace(/\\\{/g, "\u0001").replace(/\\\}/g, "\u0002").replace(/\\\|/g, "‖")
      .replace(/\\(?:mathbb|mathcal|mathrm|mathbf|operatorname|text|textrm|boldsymbol)\s*\{([^{}]*)\}/g, "$1")
      .replace(/\\([A-Za-z]+)/g, (m, name) => (name in GREEK ? GREEK[name] : ""))
      .replace(/\\[,;:! ]/g, " ").replace(/[{}]/g, "").replace(/\u0001/g, "{").replace(/\u0002/g, "}")
      .replace(/\\/g, " ").replace(/\s+/g, " ").trim();
  }
  function patch() {
    if (typeof Search === "undefined" || !Search.htmlToText || Search.htmlToText.rfnb) return;
    const original = Search.htmlToText;
    const cleaned = (htmlString, anchor) => {
      const doc = new DOMParser().parseFromString(htmlString, "text/html");
      doc.querySelectorAll(".math").forEach((el) => el.replaceWith(doc.createTextNode(" " + readable(el.textContent) + " ")));
      doc.querySelectorAll(".bd-header-article, .header-article-items, .theme-switch-button, .dropdown-menu, button, " +
                           ".prev-next-area, .bd-footer-article").forEach((el) => el.remove());
      return original(doc.documentElement.outerHTML, anchor);
    };
    cleaned.rfnb = true;
    Search.htmlToText = cleaned;
  }
  patch();
  document.addEventListener("DOMContentLoaded", patch);
})();
