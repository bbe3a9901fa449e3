// The console's only script: it enhances, never replaces, the server-rendered page.
// An element with data-refresh="N" is fetched again every N seconds (never more often than
// every 2 s, and not while the tab is hidden) and swapped in place; without script, the page
// still shows everything and a reload refreshes it.
(function () {
  "use strict";
  var live = document.querySelector("[data-refresh]");
  if (!live || !window.fetch || !window.DOMParser) { return; }
  var seconds = Math.max(2, parseInt(live.getAttribute("data-refresh"), 10) || 5);
  function refresh() {
    if (document.hidden) { return; }
    fetch(window.location.href, { credentials: "same-origin", headers: { "Accept": "text/html" } })
      .then(function (response) { return response.ok ? response.text() : null; })
      .then(function (html) {
        if (!html) { return; }
        var fresh = new DOMParser().parseFromString(html, "text/html").getElementById(live.id);
        if (fresh) { live.replaceWith(fresh); live = fresh; }
      })
      .catch(function () {});
  }
  window.setInterval(refresh, seconds * 1000);
})();
