//! A static web server for the TodoMVC examples (npm `todomvc@0.1.1`, installed by
//! dev-up) that injects a probe script into every HTML page. The probe reports the todo
//! list as the page itself sees it (item labels, `completed` classes, the counter text) to
//! `POST /__probe`, so tests confirm the app's state by an independent read, not by the
//! worker's own "ok". Pages are keyed by the `probe` query parameter of their URL.

use std::collections::HashMap;
use std::net::SocketAddr;
use std::path::{Component, PathBuf};
use std::sync::{Arc, Mutex};

use axum::body::Bytes;
use axum::extract::{Path, State};
use axum::http::{header, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::Router;
use serde::Deserialize;

const PROBE_JS: &str = r#"(function () {
  var token = new URLSearchParams(location.search).get('probe') || '';
  function report() {
    var items = Array.prototype.map.call(
      document.querySelectorAll('#todo-list li, .todo-list li'),
      function (li) {
        var label = li.querySelector('label');
        return { text: label ? label.textContent.trim() : '',
                 completed: /(^|\s)completed(\s|$)/.test(li.className) };
      });
    var count = document.querySelector('#todo-count, .todo-count');
    var x = new XMLHttpRequest();
    x.open('POST', '/__probe', true);
    x.setRequestHeader('Content-Type', 'application/json');
    x.send(JSON.stringify({ token: token, items: items,
      count: count ? count.textContent.replace(/\s+/g, ' ').trim() : null }));
  }
  var t = null;
  function schedule() { clearTimeout(t); t = setTimeout(report, 20); }
  new MutationObserver(schedule).observe(document.documentElement,
    { subtree: true, childList: true, attributes: true, characterData: true });
  window.addEventListener('load', schedule);
})();"#;

/// One todo as the page shows it.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct Item {
    pub text: String,
    pub completed: bool,
}

/// The latest state a page reported.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct PageState {
    pub token: String,
    pub items: Vec<Item>,
    pub count: Option<String>,
}

/// A small sign-in form (`/login.html`): a site search box (`type=search`), username,
/// password field, button. On "Sign in" it
/// posts what was typed to `/__login` (so a test can check the real value arrived) and
/// shows "Welcome, <user>" — never the password.
const LOGIN_HTML: &str = r#"<!doctype html><html><head><title>Account</title></head><body>
<h1>Account</h1>
<p><label for="s">Search</label> <input id="s" type="search" placeholder="Search the site"></p>
<p><label for="u">Username</label> <input id="u" placeholder="Username"></p>
<p><label for="p">Password</label> <input id="p" type="password" placeholder="Password"></p>
<p><button id="b">Sign in</button></p><p id="msg"></p>
<script>document.getElementById('b').onclick = function () {
  var u = document.getElementById('u').value, p = document.getElementById('p').value;
  var x = new XMLHttpRequest(); x.open('POST', '/__login', true);
  x.setRequestHeader('Content-Type', 'application/json');
  x.send(JSON.stringify({ user: u, password: p }));
  document.getElementById('msg').textContent = 'Welcome, ' + u;
};</script></body></html>"#;

/// A todo list that builds itself `ms` (query parameter, default 1500) after the load
/// event, the way module-loader apps do: placeholder "What needs to be done?", Enter adds an
/// item with a checkbox, "N item(s) left", "Clear completed". The same probe reports it.
const DELAYED_HTML: &str = r#"<!doctype html><html><head><title>Later</title>
<script src="/__probe.js"></script></head><body><p id="status">loading…</p>
<script>window.addEventListener('load', function () {
  var ms = +(new URLSearchParams(location.search).get('ms') || 1500);
  setTimeout(function () {
    document.getElementById('status').remove();
    var root = document.createElement('section');
    root.innerHTML = '<h1>todos</h1><input class="new-todo" placeholder="What needs to be done?">' +
      '<ul class="todo-list"></ul><span class="todo-count"></span>' +
      '<button class="clear-completed">Clear completed</button>';
    document.body.appendChild(root);
    var list = root.querySelector('.todo-list'), count = root.querySelector('.todo-count');
    function refresh() {
      var left = list.querySelectorAll('li:not(.completed)').length;
      count.textContent = left + (left === 1 ? ' item left' : ' items left');
    }
    root.querySelector('.new-todo').addEventListener('keydown', function (e) {
      if (e.key !== 'Enter' || !this.value.trim()) return;
      var li = document.createElement('li');
      li.innerHTML = '<input type="checkbox"> <label></label>';
      li.querySelector('label').textContent = this.value.trim();
      li.querySelector('input').addEventListener('change', function () {
        li.className = this.checked ? 'completed' : ''; refresh();
      });
      list.appendChild(li); this.value = ''; refresh();
    });
    root.querySelector('.clear-completed').addEventListener('click', function () {
      list.querySelectorAll('li.completed').forEach(function (li) { li.remove(); }); refresh();
    });
    refresh();
  }, ms);
});</script></body></html>"#;

/// A bar chart drawn on a `<canvas>` by npm `chart.js` (`/chart.umd.js`): two datasets,
/// "Apples" and "Pears", and a legend that toggles them on click — controls the accessibility
/// tree cannot see. Every 200 ms the page reports which datasets the chart itself says are
/// visible, as the probe's `count` (`Apples=shown Pears=hidden`).
const CHART_HTML: &str = r#"<!doctype html><html><head><title>Fruit</title>
<script src="/chart.umd.js"></script></head><body style="margin:0;background:#fff">
<div style="width:900px;height:560px"><canvas id="c"></canvas></div>
<script>
Chart.defaults.font.size = 22; Chart.defaults.animation = false;
var chart = new Chart(document.getElementById('c'), { type: 'bar',
  data: { labels: ['Mon', 'Tue', 'Wed'], datasets: [
    { label: 'Apples', data: [3, 5, 2], backgroundColor: '#4a90d9' },
    { label: 'Pears', data: [4, 1, 6], backgroundColor: '#e07b39' } ] },
  options: { responsive: true, maintainAspectRatio: false } });
var token = new URLSearchParams(location.search).get('probe') || '';
function report() {
  var s = chart.data.datasets.map(function (d, i) {
    return d.label + '=' + (chart.isDatasetVisible(i) ? 'shown' : 'hidden'); }).join(' ');
  var x = new XMLHttpRequest(); x.open('POST', '/__probe', true);
  x.setRequestHeader('Content-Type', 'application/json');
  x.send(JSON.stringify({ token: token, items: [], count: s }));
}
setInterval(report, 200); report();
</script></body></html>"#;

/// Gestures, each confirmed by the page itself through the probe's `count` field:
/// `dbl=N` (dblclick events on "Double me"), `held=N` (presses of "Hold me" ≥ 500 ms),
/// `scrolled=1` once the window scrolled down; a disabled "Locked" button.
const GESTURES_HTML: &str = r#"<!doctype html><html><head><title>Gestures</title></head>
<body style="margin:0"><div style="position:fixed;top:0;left:0;background:#fff">
<button id="d">Double me</button> <button id="h">Hold me</button>
<button id="l" disabled>Locked</button> <span id="s" class="todo-count">dbl=0 held=0 scrolled=0</span></div>
<div style="height:4000px"></div><p>Bottom marker</p>
<script>
var st = { dbl: 0, held: 0, scrolled: 0 }, down = 0;
function show() {
  document.getElementById('s').textContent = 'dbl=' + st.dbl + ' held=' + st.held + ' scrolled=' + st.scrolled;
}
document.getElementById('d').addEventListener('dblclick', function () { st.dbl++; show(); });
document.getElementById('h').addEventListener('mousedown', function () { down = Date.now(); });
document.getElementById('h').addEventListener('mouseup', function () {
  if (Date.now() - down >= 500) { st.held++; show(); }
});
window.addEventListener('scroll', function () { if (window.scrollY > 100) { st.scrolled = 1; show(); } });
</script><script src="/__probe.js"></script></body></html>"#;

/// A time and a date field whose values the page prints as `time=… date=…`.
const DATES_HTML: &str = r#"<!doctype html><html><head><title>Dates</title></head><body>
<p><label>Time <input type="time" id="t"></label></p>
<p><label>Date <input type="date" id="d"></label></p>
<p><label>Country <select id="c"><option value="">Choose one</option><option value="no">Norway</option>
<option value="nf">Norfolk Island</option><option value="kp">North Korea</option></select></label></p>
<p id="out">time= date= country=</p>
<script>
const show = () => { document.getElementById('out').textContent =
  'time=' + document.getElementById('t').value + ' date=' + document.getElementById('d').value +
  ' country=' + document.getElementById('c').value; };
for (const id of ['t', 'd', 'c']) { const el = document.getElementById(id);
  el.addEventListener('input', show); el.addEventListener('change', show); }
</script></body></html>"#;

/// Two rows with their own "Add" and "Edit" buttons under a fixed "Admin rows" header, a
/// link far below; the probe's `count` says which row's Add was pressed and whether the
/// window scrolled (`added=Groups scrolled=1`).
const ROWS_HTML: &str = r#"<!doctype html><html><head><title>Rows</title></head>
<body style="margin:0"><div style="position:fixed;top:0;left:0;right:0;background:#fff">
<h1 style="margin:0">Admin rows</h1><span class="todo-count" id="s">added=none scrolled=0</span></div>
<table style="margin-top:80px">
<tr><td>Users</td><td><button>Add</button></td><td><button>Edit</button></td></tr>
<tr><td>Groups</td><td><button>Add</button></td><td><button>Edit</button></td></tr></table>
<div style="height:3000px"></div><p>Far below <a id="more" href="/gestures.html">More gestures</a></p>
<script>
var st = { added: 'none', scrolled: 0 };
function show() { document.getElementById('s').textContent = 'added=' + st.added + ' scrolled=' + st.scrolled; }
document.querySelectorAll('button').forEach(function (b) {
  b.addEventListener('click', function () {
    if (b.textContent === 'Add') { st.added = b.closest('tr').cells[0].textContent; show(); }
  });
});
window.addEventListener('scroll', function () { if (window.scrollY > 1000) { st.scrolled = 1; show(); } });
var q = new URLSearchParams(location.search).get('probe');
document.getElementById('more').href = '/gestures.html?probe=' + q + '-g';
</script><script src="/__probe.js"></script></body></html>"#;

/// A sign-up form as real sites write it (`/signup.html`): labels ending in a colon
/// (`Password:`, `Password confirmation:`) or a required mark (`Email *`), both password
/// fields, a prefilled name, an empty nickname, a country dropdown, checked and unchecked
/// checkboxes, a switch, two radio buttons and two rows with a "Delete" button each. A hidden
/// status line the probe reports as `count` (never on screen) says what the fields hold:
/// `email=… pw=… pw2=… name=…`.
const SIGNUP_HTML: &str = r#"<!doctype html><html><head><title>Sign up</title></head><body>
<h1>Sign up</h1><form onsubmit="return false">
<p><label for="email">Email *</label> <input id="email" type="email"></p>
<p><label for="pw">Password:</label> <input id="pw" type="password"></p>
<p><label for="pw2">Password confirmation:</label> <input id="pw2" type="password"></p>
<p><label for="name">Name:</label> <input id="name" value="Ada Lovelace"></p>
<p><label for="nick">Nickname</label> <input id="nick"></p>
<p><label for="country">Country</label> <select id="country"><option>Sweden</option>
<option selected>Norway</option></select></p>
<p><input type="checkbox" id="rm" checked> <label for="rm">Remember me</label></p>
<p><input type="checkbox" id="news"> <label for="news">Subscribe to news</label></p>
<p><button type="button" role="switch" aria-checked="true" id="dark">Dark mode</button></p>
<p><label><input type="radio" name="plan" checked> Free</label>
<label><input type="radio" name="plan"> Pro</label></p>
</form>
<table><tr><td>alpha</td><td><button>Delete</button></td></tr>
<tr><td>beta</td><td><button>Delete</button></td></tr></table>
<span class="todo-count" id="s" hidden></span>
<script>
function show() {
  var v = function (id) { return document.getElementById(id).value; };
  document.getElementById('s').textContent = 'email=' + v('email') + ' pw=' + v('pw') +
    ' pw2=' + v('pw2') + ' name=' + v('name');
}
document.querySelectorAll('input').forEach(function (i) { i.addEventListener('input', show); });
show();
</script><script src="/__probe.js"></script></body></html>"#;

/// Injected into the [`Site::toggle_off_url`] copy of vanillajs TodoMVC, before the app's
/// own scripts: a window capture-phase listener that stops every click on a todo's
/// completion checkbox (`.toggle`) before the app's delegated listener (registered on
/// `<html>`, capture phase) sees it. The browser still ticks the box — a checkbox whose
/// handler is not wired, the classic regression — but the app never marks the todo
/// completed: its row keeps no `completed` class and the counter does not go down.
const TOGGLE_OFF_JS: &str = r#"<script>window.addEventListener('click', function (e) {
  if (e.target && e.target.classList && e.target.classList.contains('toggle')) {
    e.stopImmediatePropagation();
  }
}, true);</script>"#;

#[derive(Clone)]
struct SiteState {
    root: PathBuf,
    chartjs: Option<PathBuf>,
    reports: Arc<Mutex<HashMap<String, PageState>>>,
    logins: Arc<Mutex<Vec<serde_json::Value>>>,
    /// What `/app/` serves (see [`Site::set_app`]).
    app: Arc<Mutex<String>>,
}

/// [`Site::set_app`]'s name for this site's own minimal TodoMVC.
pub const MINIMAL_APP: &str = "minimal";

/// The running site.
pub struct Site {
    /// `http://127.0.0.1:<port>`.
    pub base_url: String,
    reports: Arc<Mutex<HashMap<String, PageState>>>,
    logins: Arc<Mutex<Vec<serde_json::Value>>>,
    app: Arc<Mutex<String>>,
}

/// The site's own fixed pages: path → HTML.
const PAGES: &[(&str, &str)] = &[
    ("/login.html", LOGIN_HTML),
    ("/delayed.html", DELAYED_HTML),
    ("/dates.html", DATES_HTML),
    ("/signup.html", SIGNUP_HTML),
    ("/rows.html", ROWS_HTML),
    ("/chart.html", CHART_HTML),
    ("/gestures.html", GESTURES_HTML),
];

impl Site {
    /// Serves the TodoMVC examples of this machine (`ARGUS_TODOMVC_DIR`) on a free
    /// loopback port.
    pub async fn todomvc() -> Site {
        Site::start(crate::Services::from_env().todomvc_dir).await
    }

    /// Serves `root` on a free loopback port.
    pub async fn start(root: PathBuf) -> Site {
        Site::start_with(root, None).await
    }

    /// Serves `root`, and `/chart.html` with npm chart.js from `chartjs`.
    pub async fn start_with(root: PathBuf, chartjs: Option<PathBuf>) -> Site {
        assert!(
            root.join("examples/vanillajs/index.html").exists(),
            "TodoMVC not found under {} (run deploy/dev-up.sh)",
            root.display()
        );
        let reports = Arc::new(Mutex::new(HashMap::new()));
        let logins = Arc::new(Mutex::new(Vec::new()));
        let app_choice = Arc::new(Mutex::new("vanillajs".to_string()));
        let state = SiteState {
            root,
            chartjs,
            reports: reports.clone(),
            logins: logins.clone(),
            app: app_choice.clone(),
        };
        let app = PAGES
            .iter()
            .fold(Router::new(), |r, (path, html)| {
                r.route(
                    path,
                    get(move || async move {
                        ([(header::CONTENT_TYPE, "text/html; charset=utf-8")], *html)
                    }),
                )
            })
            .route(
                "/__probe.js",
                get(|| async { ([(header::CONTENT_TYPE, "text/javascript")], PROBE_JS) }),
            )
            .route("/__probe", post(probe))
            .route(
                "/chart.umd.js",
                get(|State(st): State<SiteState>| async move {
                    match st.chartjs.as_ref().map(std::fs::read) {
                        Some(Ok(js)) => {
                            ([(header::CONTENT_TYPE, "text/javascript")], js).into_response()
                        }
                        _ => StatusCode::NOT_FOUND.into_response(),
                    }
                }),
            )
            .route(
                "/__login",
                post(|State(st): State<SiteState>, body: Bytes| async move {
                    if let Ok(v) = serde_json::from_slice(&body) {
                        if let Ok(mut l) = st.logins.lock() {
                            l.push(v);
                        }
                    }
                    StatusCode::NO_CONTENT
                }),
            )
            .route("/app/{*path}", get(app_file))
            .route("/toggle-off/{*path}", get(toggle_off_file))
            .route("/{*path}", get(file))
            .with_state(state);
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("bind site");
        let addr: SocketAddr = listener.local_addr().expect("addr");
        tokio::spawn(async move {
            let _ = axum::serve(listener, app).await;
        });
        Site {
            base_url: format!("http://{addr}"),
            reports,
            logins,
            app: app_choice,
        }
    }

    /// Which app `/app/…` serves from now on: a TodoMVC example (`vanillajs`, `jquery`, …,
    /// its files under `/app/`) or [`MINIMAL_APP`], this site's own minimal TodoMVC (the
    /// `delayed.html` list: a field, checkboxes, "N items left", "Clear completed" — no
    /// filter links, no "Mark all as complete"). One URL whose app changes under it, as a
    /// deploy changes a page. `vanillajs` until set.
    pub fn set_app(&self, variant: &str) {
        if let Ok(mut a) = self.app.lock() {
            *a = variant.to_string();
        }
    }

    /// URL of the page `/app/` serves ([`Site::set_app`]), tagged with a probe token.
    pub fn app_url(&self, token: &str) -> String {
        format!("{}/app/index.html?ms=0&probe={token}", self.base_url)
    }

    /// URL of a copy of vanillajs TodoMVC whose completion toggle does nothing (see
    /// [`TOGGLE_OFF_JS`]): same files, same page, one script injected into `index.html`.
    /// Tagged with a probe token.
    pub fn toggle_off_url(&self, token: &str) -> String {
        format!("{}/toggle-off/index.html?probe={token}", self.base_url)
    }

    /// URL of one example's page, tagged with a probe token.
    pub fn example_url(&self, variant: &str, token: &str) -> String {
        format!(
            "{}/examples/{variant}/index.html?probe={token}",
            self.base_url
        )
    }

    /// URL of a page this site serves itself (`delayed.html?ms=1500`, `gestures.html`,
    /// `rows.html`, `signup.html`),
    /// tagged with a probe token.
    pub fn page_url(&self, page: &str, token: &str) -> String {
        let sep = if page.contains('?') { '&' } else { '?' };
        format!("{}/{page}{sep}probe={token}", self.base_url)
    }

    /// Every sign-in the login page posted (`{user, password}`), in order.
    pub fn logins(&self) -> Vec<serde_json::Value> {
        self.logins.lock().map(|l| l.clone()).unwrap_or_default()
    }

    /// The latest state reported for `token`.
    pub fn state(&self, token: &str) -> Option<PageState> {
        self.reports.lock().ok()?.get(token).cloned()
    }
}

async fn probe(State(st): State<SiteState>, body: Bytes) -> StatusCode {
    match serde_json::from_slice::<PageState>(&body) {
        Ok(s) => {
            if let Ok(mut r) = st.reports.lock() {
                r.insert(s.token.clone(), s);
            }
            StatusCode::NO_CONTENT
        }
        Err(_) => StatusCode::BAD_REQUEST,
    }
}

/// The app [`Site::set_app`] chose: its files, or the minimal TodoMVC for `index.html`.
async fn app_file(State(st): State<SiteState>, Path(path): Path<String>) -> Response {
    let variant = st.app.lock().map(|a| a.clone()).unwrap_or_default();
    if variant == MINIMAL_APP {
        if path == "index.html" {
            return (
                [(header::CONTENT_TYPE, "text/html; charset=utf-8")],
                DELAYED_HTML,
            )
                .into_response();
        }
        return StatusCode::NOT_FOUND.into_response();
    }
    file(State(st), Path(format!("examples/{variant}/{path}"))).await
}

/// The vanillajs example with [`TOGGLE_OFF_JS`] injected into its `index.html` (right
/// after `<head>`, so it runs before the app's scripts); its other files as they are.
async fn toggle_off_file(State(st): State<SiteState>, Path(path): Path<String>) -> Response {
    if path != "index.html" {
        return file(State(st), Path(format!("examples/vanillajs/{path}"))).await;
    }
    let Ok(bytes) = tokio::fs::read(st.root.join("examples/vanillajs/index.html")).await else {
        return StatusCode::NOT_FOUND.into_response();
    };
    let html = String::from_utf8_lossy(&bytes)
        .replacen("<head>", &format!("<head>{TOGGLE_OFF_JS}"), 1)
        .replacen("</body>", "<script src=\"/__probe.js\"></script></body>", 1);
    ([(header::CONTENT_TYPE, "text/html; charset=utf-8")], html).into_response()
}

async fn file(State(st): State<SiteState>, Path(path): Path<String>) -> Response {
    let rel = PathBuf::from(&path);
    if rel.components().any(|c| !matches!(c, Component::Normal(_))) {
        return StatusCode::NOT_FOUND.into_response();
    }
    let full = st.root.join(&rel);
    let Ok(bytes) = tokio::fs::read(&full).await else {
        return StatusCode::NOT_FOUND.into_response();
    };
    let ext = full.extension().and_then(|e| e.to_str()).unwrap_or("");
    let ct = match ext {
        "html" => "text/html; charset=utf-8",
        "js" | "jsx" => "text/javascript",
        "css" => "text/css",
        "png" => "image/png",
        "json" => "application/json",
        _ => "application/octet-stream",
    };
    if ext == "html" {
        let html = String::from_utf8_lossy(&bytes).replacen(
            "</body>",
            "<script src=\"/__probe.js\"></script></body>",
            1,
        );
        return ([(header::CONTENT_TYPE, ct)], html).into_response();
    }
    ([(header::CONTENT_TYPE, ct)], bytes).into_response()
}
