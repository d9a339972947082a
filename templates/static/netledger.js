// NetLedger's small script: no inline scripts anywhere (the Content-Security-Policy forbids them).
(function () {
  'use strict';
  function cookie(name) {
    var m = document.cookie.match(new RegExp('(?:^|; )' + name + '=([^;]*)'));
    return m ? decodeURIComponent(m[1]) : '';
  }

  // Theme: light or dark, remembered in a cookie the server reads (so pages arrive in the right theme).
  document.addEventListener('click', function (event) {
    var toggle = event.target.closest('[data-theme-toggle]');
    if (!toggle) return;
    var next = document.documentElement.getAttribute('data-bs-theme') === 'dark' ? 'light' : 'dark';
    document.documentElement.setAttribute('data-bs-theme', next);
    document.cookie = 'theme=' + next + '; path=/; max-age=31536000; samesite=lax';
  });

  // The phone menu: the header's toggler opens and closes the navigation (below 992 px it is folded away).
  document.addEventListener('click', function (event) {
    var toggle = event.target.closest('[data-menu-toggle]');
    if (!toggle) return;
    var menu = document.getElementById(toggle.getAttribute('aria-controls'));
    var open = menu.classList.toggle('nl-open');
    toggle.setAttribute('aria-expanded', open ? 'true' : 'false');
  });

  // "Select all" in a list's header ticks every row.
  document.addEventListener('change', function (event) {
    var all = event.target.closest('[data-select-all]');
    if (all) {
      var form = all.closest('form');
      form.querySelectorAll('input[name="pk"]').forEach(function (box) { box.checked = all.checked; });
    }
    if (event.target.matches('[data-autosubmit]')) event.target.form.submit();
  });

  // Relation search: the box above a select asks the API (brief=1&q=) and refills the select's options,
  // keeping the ones already chosen.
  var timers = new WeakMap();
  document.addEventListener('input', function (event) {
    var box = event.target.closest('[data-search-api]');
    if (!box) return;
    clearTimeout(timers.get(box));
    timers.set(box, setTimeout(function () {
      var select = document.getElementById(box.getAttribute('data-search-target'));
      var url = box.getAttribute('data-search-api') + '?brief=1&limit=50&q=' + encodeURIComponent(box.value);
      fetch(url, { headers: { Accept: 'application/json' }, credentials: 'same-origin' })
        .then(function (r) { return r.json(); })
        .then(function (data) {
          var keep = Array.prototype.filter.call(select.options, function (o) { return o.selected || o.value === ''; });
          var seen = {};
          keep.forEach(function (o) { seen[o.value] = true; });
          select.replaceChildren.apply(select, keep);
          (data.results || []).forEach(function (obj) {
            if (seen[String(obj.id)]) return;
            select.appendChild(new Option(obj.display, String(obj.id)));
          });
          select.dispatchEvent(new Event('nl:options'));
        });
    }, 250));
  });

  // The browsable API's form: sends the JSON body with the session's CSRF token, then shows the answer.
  document.addEventListener('submit', function (event) {
    var form = event.target.closest('[data-api-form]');
    if (!form) return;
    event.preventDefault();
    var method = form.elements.method.value;
    fetch(form.getAttribute('data-api-path'), {
      method: method,
      credentials: 'same-origin',
      headers: { 'Content-Type': 'application/json', Accept: 'application/json', 'X-CSRFToken': cookie('csrftoken') },
      body: form.elements.body.value,
    }).then(function (r) {
      return r.text().then(function (text) {
        var shown = text;
        try { shown = JSON.stringify(JSON.parse(text), null, 2); } catch (e) { /* not JSON */ }
        document.querySelector('[data-api-response]').textContent = shown;
        document.querySelector('[data-api-status]').textContent = 'HTTP ' + r.status;
      });
    });
  });
})();
