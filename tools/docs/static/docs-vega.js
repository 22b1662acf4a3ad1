// Renders vega / vega-lite mimebundle outputs (altair's 'mimetype'/'jupyterlab' renderers) with the site's own
// copies of vega, vega-lite and vega-embed (_static/vendor/), loaded once per page. Used by tools/build_docs.py.
(function () {
  if (window.docsVegaEmbed) return;
  var base = document.currentScript.src.replace(/docs-vega\.js(\?.*)?$/, 'vendor/');
  var libs = ['vega/vega.min.js', 'vega-lite/vega-lite.min.js', 'vega-embed/vega-embed.min.js'];
  function load(src) {
    return new Promise(function (resolve, reject) {
      var s = document.createElement('script');
      s.src = base + src; s.onload = resolve;
      s.onerror = function () { reject(new Error('cannot load ' + s.src)); };
      document.head.appendChild(s);
    });
  }
  var ready = null;
  window.docsVegaEmbed = function (el, spec, opt) {
    ready = ready || (window.vegaEmbed ? Promise.resolve() : libs.reduce(function (p, l) {
      return p.then(function () { return load(l); });
    }, Promise.resolve()));
    return ready.then(function () { return window.vegaEmbed(el, spec, opt); })
      .catch(function (err) { console.error('vega chart failed:', err); });
  };
})();
