// The book's live 3-D views: RequireJS finds jupyter-threejs next to this file (book/build.py vendors
// it from npm), so the ipywidgets HTML manager never asks a CDN for it.
(function () {
  var here = document.currentScript.src.replace(/[^/]*$/, "");
  require.config({
    paths: {
      "jupyter-threejs": here + "widgets/jupyter-threejs/index",
      // the manager's fonts (Font Awesome), which it asks for by this module path: next to it
      "@jupyter-widgets/html-manager/dist": here + "widgets",
    },
  });
})();
