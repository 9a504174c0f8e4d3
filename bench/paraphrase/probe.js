// bench/paraphrase's ORACLE PROBE (a served copy only; the npm/PyPI packages are untouched).
// runner.py puts it, with window.__ARGUS_PP__ = {token, kind, variant, seed}, at the top of
// every HTML page it serves, before the app's own scripts. It reads the page's state the way
// the app keeps it and beacons it to POST /__pp/state on every change, so the runner judges a
// run by the page itself, never by Argus's verdict.
// - kind "todo" (TodoMVC): on the first load of a new token it clears localStorage and writes
//   the item's start state in the variant's own storage format; it then reports the app's
//   stored list (independent of the filter shown) and, for reference, the list in the DOM.
// - kind "form" (MiniWoB form pages): it reports every field's value (keyed by id, else the
//   row header or label beside it) and a snapshot of the fields at each click on the page's
//   submit control.
(function () {
  'use strict';
  var cfg = window.__ARGUS_PP__ || {};
  var TOKEN_KEY = '__argus_pp_token';
  var token = cfg.token || sessionStorage.getItem(TOKEN_KEY) || null;
  if (!token) { return; }
  sessionStorage.setItem(TOKEN_KEY, token);
  var counter = 0;
  function send(state) {
    state.token = token;
    state.kind = cfg.kind;
    state.page = location.pathname + location.hash;
    state.seq = Date.now() * 1000 + (counter++ % 1000);
    var body = JSON.stringify(state);
    try {
      var x = new XMLHttpRequest();
      x.open('POST', '/__pp/state', true);
      x.setRequestHeader('Content-Type', 'application/json');
      x.send(body);
    } catch (e) {
      try { navigator.sendBeacon('/__pp/state', body); } catch (e2) { /* no state: judged wrong */ }
    }
  }

  // ------------------------------------------------------------------ TodoMVC
  var STORE = {
    vanillajs: {
      write: function (todos) {
        localStorage.setItem('todos-vanillajs', JSON.stringify({ todos: todos.map(function (t, i) {
          return { title: t.title, completed: t.completed, id: 1000 + i };
        }) }));
      },
      read: function () {
        var d = JSON.parse(localStorage.getItem('todos-vanillajs') || 'null');
        return d ? d.todos : null;
      }
    },
    jquery: {
      write: function (todos) {
        localStorage.setItem('todos-jquery', JSON.stringify(todos.map(function (t, i) {
          return { id: 'pp-' + i, title: t.title, completed: t.completed };
        })));
      },
      read: function () { return JSON.parse(localStorage.getItem('todos-jquery') || 'null'); }
    },
    react: {
      write: function (todos) {
        localStorage.setItem('react-todos', JSON.stringify(todos.map(function (t, i) {
          return { id: 'pp-' + i, title: t.title, completed: t.completed };
        })));
      },
      read: function () { return JSON.parse(localStorage.getItem('react-todos') || 'null'); }
    },
    backbone: {
      write: function (todos) {
        var ids = todos.map(function (t, i) { return 'pp-' + i; });
        todos.forEach(function (t, i) {
          localStorage.setItem('todos-backbone-' + ids[i],
            JSON.stringify({ title: t.title, completed: t.completed, order: i + 1, id: ids[i] }));
        });
        localStorage.setItem('todos-backbone', ids.join(','));
      },
      read: function () {
        var ids = localStorage.getItem('todos-backbone');
        if (ids === null) { return null; }
        return ids.split(',').filter(Boolean).map(function (id) {
          return JSON.parse(localStorage.getItem('todos-backbone-' + id) || '{}');
        });
      }
    }
  };

  function todoProbe() {
    var store = STORE[cfg.variant];
    if (!store) { return; }
    if (cfg.token && localStorage.getItem(TOKEN_KEY) !== cfg.token) {
      localStorage.clear();
      store.write(cfg.seed || []);
      localStorage.setItem(TOKEN_KEY, cfg.token);
    }
    var last = null;
    function report() {
      var stored = null;
      try {
        stored = (store.read() || []).map(function (t) {
          return { title: String(t.title === undefined ? '' : t.title), completed: !!t.completed };
        });
      } catch (e) { stored = null; }
      var shown = Array.prototype.map.call(
        document.querySelectorAll('#todo-list li, .todo-list li'),
        function (li) {
          var label = li.querySelector('label');
          return { title: label ? label.textContent.trim() : '',
                   completed: /(^|\s)completed(\s|$)/.test(li.className) };
        });
      var count = document.querySelector('#todo-count, .todo-count');
      var state = { todos: stored, shown: shown,
                    count: count ? count.textContent.replace(/\s+/g, ' ').trim() : null };
      var key = JSON.stringify(state);
      if (key === last) { return; }
      last = key;
      send(state);
    }
    var t = null;
    function schedule() { clearTimeout(t); t = setTimeout(report, 30); }
    document.addEventListener('DOMContentLoaded', function () {
      new MutationObserver(schedule).observe(document.documentElement,
        { subtree: true, childList: true, attributes: true, characterData: true });
    });
    window.addEventListener('load', schedule);
    // localStorage writes fire no event in the page that makes them: look twice a second too.
    setInterval(report, 500);
  }

  // ------------------------------------------------------------------ forms
  function formProbe() {
    var submits = [];
    function keyOf(el, i) {
      if (el.id) { return el.id; }
      var tr = el.closest('tr');
      var th = tr && tr.querySelector('th');
      if (th && th.textContent.trim()) { return th.textContent.trim(); }
      var p = el.parentElement;
      var label = p && p.querySelector('label');
      if (label && label.textContent.trim()) { return label.textContent.trim(); }
      return el.name || ('field' + i);
    }
    function fields() {
      var out = {};
      var area = document.getElementById('area') || document.body;
      Array.prototype.forEach.call(area.querySelectorAll('input, select, textarea'), function (el, i) {
        var v = (el.type === 'checkbox' || el.type === 'radio') ? el.checked : el.value;
        out[keyOf(el, i)] = v;
      });
      return out;
    }
    var last = null;
    function report() {
      var state = { fields: fields(), submits: submits };
      var key = JSON.stringify(state);
      if (key === last) { return; }
      last = key;
      send(state);
    }
    document.addEventListener('click', function (ev) {
      var el = ev.target && ev.target.closest &&
        ev.target.closest('#subbtn, #area .final, #area button, #area input[type=submit]');
      if (el) {
        submits.push({ control: (el.textContent || el.value || '').trim(), fields: fields() });
        report();
      }
    }, true);
    document.addEventListener('input', report, true);
    document.addEventListener('change', report, true);
    window.addEventListener('load', function () { setTimeout(report, 200); });
    setInterval(report, 500);
  }

  if (cfg.kind === 'todo') { todoProbe(); } else if (cfg.kind === 'form') { formProbe(); }
})();
