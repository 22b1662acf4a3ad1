// MathJax 3 configuration for the docs site (tools/build_docs.py), and a shim of the MathJax 2 API that
// @jupyter-widgets/html-manager calls to typeset widget labels: MathJax.Hub.Queue(["Typeset", MathJax.Hub, el]).
(function () {
  var pending = [];
  function queue() {
    for (var i = 0; i < arguments.length; i++) {
      var a = arguments[i];
      if (Array.isArray(a) && a[0] === 'Typeset') pending.push(a[2]);
    }
    flush();
  }
  function flush() {
    var M = window.MathJax;
    if (!M || !M.typesetPromise || !M.startup || !M.startup.promise) return;   // not loaded yet: ready() flushes
    var els = pending.splice(0).filter(Boolean);
    if (!els.length) return;
    M.startup.promise = M.startup.promise
      .then(function () { return M.typesetPromise(els); })
      .catch(function (err) { console.warn('MathJax typeset failed:', err); });
  }
  window.MathJax = {
    tex: {inlineMath: [['$', '$'], ['\\(', '\\)']], displayMath: [['$$', '$$'], ['\\[', '\\]']],
          processEscapes: true, processEnvironments: true},
    options: {ignoreHtmlClass: 'tex2jax_ignore|mathjax_ignore', processHtmlClass: 'tex2jax_process|mathjax_process|math'},
    startup: {
      ready: function () {
        MathJax.startup.defaultReady();
        MathJax.Hub = {Queue: queue};
        MathJax.startup.promise.then(flush);
      }
    },
    Hub: {Queue: queue}   // before MathJax has loaded: remember the elements
  };
})();
