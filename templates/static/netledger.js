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

  // Relation comboboxes: a select over a relation (data-combobox="<API list>") becomes a text box that
  // asks the API (brief=1&q=&limit=) as one types and lists the matches as a listbox (ARIA combobox
  // pattern: arrows move, Enter picks, Escape closes). The select stays the form's value: a pick is
  // added to its options and selected, so the form posts what it posted without the script. It stays
  // in the page for scripts and tests (hidden from sight and from assistive technology).
  var RESULTS = 20;
  var comboboxes = 0;
  function enhance(select) {
    if (select.hasAttribute('data-combobox-ready')) return;
    select.setAttribute('data-combobox-ready', '');
    var n = ++comboboxes;
    var multiple = select.multiple;
    var api = select.getAttribute('data-combobox');
    var label = document.querySelector('label[for="' + select.id + '"]');
    var name = label ? label.textContent.trim() : select.name;
    var box = document.createElement('div');
    box.className = 'nl-combobox';
    var chips = document.createElement('div');
    chips.className = 'nl-combobox-chips';
    var input = document.createElement('input');
    input.type = 'text';
    input.id = select.id + '-combobox';
    input.className = select.className.replace('form-select', 'form-control');
    input.setAttribute('role', 'combobox');
    input.setAttribute('aria-autocomplete', 'list');
    input.setAttribute('aria-expanded', 'false');
    input.setAttribute('autocomplete', 'off');
    input.setAttribute('placeholder', multiple ? 'Type to add…' : 'Type to search…');
    ['aria-required', 'aria-describedby'].forEach(function (a) { if (select.hasAttribute(a)) input.setAttribute(a, select.getAttribute(a)); });
    var popup = document.createElement('div');
    popup.className = 'nl-combobox-popup';
    popup.hidden = true;
    var list = document.createElement('ul');
    list.id = 'nl-combobox-list-' + n;
    list.setAttribute('role', 'listbox');
    list.setAttribute('aria-label', name);
    var note = document.createElement('div');
    note.className = 'nl-combobox-note';
    note.setAttribute('aria-live', 'polite');
    popup.append(list, note);
    input.setAttribute('aria-controls', list.id);
    if (label) label.htmlFor = input.id;
    select.classList.add('nl-combobox-native');
    select.setAttribute('aria-hidden', 'true');
    select.tabIndex = -1;
    select.parentNode.insertBefore(box, select);
    box.append(chips, input, popup, select);

    var results = [];
    var active = -1;
    var asked = 0;
    var timer;
    function chosen() { return Array.prototype.filter.call(select.options, function (o) { return o.selected && o.value !== ''; }); }
    function show() {
      // the chosen value(s): a single select's text, a multiple select's chips
      if (multiple) {
        chips.replaceChildren.apply(chips, chosen().map(function (o) {
          var chip = document.createElement('button');
          chip.type = 'button';
          chip.className = 'btn btn-sm nl-chip';
          chip.setAttribute('data-value', o.value);
          chip.setAttribute('aria-label', 'Remove ' + o.text);
          chip.textContent = o.text + ' ×';
          return chip;
        }));
      } else {
        var o = chosen()[0];
        input.value = o ? o.text : '';
      }
    }
    function close() {
      popup.hidden = true;
      input.setAttribute('aria-expanded', 'false');
      input.removeAttribute('aria-activedescendant');
      active = -1;
    }
    function mark(i) {
      active = i;
      Array.prototype.forEach.call(list.children, function (li, j) { li.setAttribute('aria-selected', j === i ? 'true' : 'false'); });
      if (i < 0) { input.removeAttribute('aria-activedescendant'); return; }
      input.setAttribute('aria-activedescendant', list.children[i].id);
      list.children[i].scrollIntoView({ block: 'nearest' });
    }
    function search(text) {
      var ask = ++asked;
      var url = api + '?brief=1&limit=' + RESULTS + (text ? '&q=' + encodeURIComponent(text) : '');
      fetch(url, { headers: { Accept: 'application/json' }, credentials: 'same-origin' })
        .then(function (r) { return r.ok ? r.json() : { results: [], count: 0 }; })
        .then(function (data) {
          if (ask !== asked || document.activeElement !== input) return;
          results = data.results || [];
          list.replaceChildren.apply(list, results.map(function (obj, i) {
            var li = document.createElement('li');
            li.id = list.id + '-' + i;
            li.setAttribute('role', 'option');
            li.setAttribute('aria-selected', 'false');
            li.textContent = obj.display;
            return li;
          }));
          var count = Number(data.count || 0);
          note.textContent = !results.length ? 'No matches' : count > results.length ? results.length + ' of ' + count + ' shown: type to narrow' : '';
          popup.hidden = false;
          input.setAttribute('aria-expanded', 'true');
          mark(results.length ? 0 : -1);
        });
    }
    function pick(i) {
      var obj = results[i];
      if (!obj) return;
      var value = String(obj.id);
      var option = Array.prototype.find.call(select.options, function (o) { return o.value === value; });
      if (!option) { option = new Option(obj.display, value); select.add(option); }
      if (!multiple) Array.prototype.forEach.call(select.options, function (o) { o.selected = false; });
      option.selected = true;
      close();
      if (multiple) input.value = '';
      select.dispatchEvent(new Event('change', { bubbles: true }));
    }
    function clear() {
      Array.prototype.forEach.call(select.options, function (o) { o.selected = o.value === ''; });
      select.dispatchEvent(new Event('change', { bubbles: true }));
    }
    select.addEventListener('change', show);
    input.addEventListener('input', function () {
      clearTimeout(timer);
      timer = setTimeout(function () { search(input.value.trim()); }, 200);
    });
    input.addEventListener('keydown', function (event) {
      var open = !popup.hidden;
      if (event.key === 'ArrowDown' || event.key === 'ArrowUp') {
        event.preventDefault();
        if (!open) { search(multiple || !chosen().length ? input.value.trim() : ''); return; }
        if (!results.length) return;
        var step = event.key === 'ArrowDown' ? 1 : -1;
        mark((active + step + results.length) % results.length);
      } else if (event.key === 'Enter') {
        if (open) { event.preventDefault(); if (active >= 0) pick(active); }
      } else if (event.key === 'Escape') {
        if (open) { event.preventDefault(); close(); }
        if (!multiple) show();
      } else if (event.key === 'Backspace' && multiple && input.value === '') {
        var last = chosen().pop();
        if (last) { last.selected = false; select.dispatchEvent(new Event('change', { bubbles: true })); }
      }
    });
    input.addEventListener('blur', function () {
      clearTimeout(timer);
      asked++;
      close();
      if (multiple) input.value = '';
      else if (input.value.trim() === '' && chosen().length && !select.hasAttribute('aria-required')) clear();
      else show();
    });
    // a click on a match picks it; mousedown is held so the text box keeps the focus
    list.addEventListener('mousedown', function (event) { event.preventDefault(); });
    list.addEventListener('click', function (event) {
      var li = event.target.closest('[role=option]');
      if (li) pick(Array.prototype.indexOf.call(list.children, li));
    });
    chips.addEventListener('click', function (event) {
      var chip = event.target.closest('[data-value]');
      if (!chip) return;
      Array.prototype.forEach.call(select.options, function (o) { if (o.value === chip.getAttribute('data-value')) o.selected = false; });
      select.dispatchEvent(new Event('change', { bubbles: true }));
      input.focus();
    });
    show();
  }
  function enhanceAll(root) {
    (root.querySelectorAll ? root : document).querySelectorAll('select[data-combobox]').forEach(enhance);
  }
  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', function () { enhanceAll(document); });
  else enhanceAll(document);
  // content htmx swaps in (the cable form's sides) gets its comboboxes too
  document.addEventListener('htmx:load', function (event) { enhanceAll(event.target); });

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
