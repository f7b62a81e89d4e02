(function () {
  var ROW = 22;
  var data = JSON.parse(document.getElementById('data').textContent);
  var events = data.events, findings = data.findings || [];
  var list = document.getElementById('list'), spacer = document.getElementById('spacer');
  var detail = document.getElementById('detail');
  var fdir = document.getElementById('fdir'), fmethod = document.getElementById('fmethod');
  var ffound = document.getElementById('ffound'), shown = document.getElementById('shown');
  var visible = [], selected = -1, drawn = 0;

  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined) e.textContent = text;
    return e;
  }
  // The method of a message (its label's first word), for the filter.
  function method(ev) {
    if (ev.d !== 'c2s' && ev.d !== 's2c') return '';
    var m = ev.m.split(' ')[0];
    return m === 'result' || m === 'error' ? '(response)' : m;
  }
  // The HTTP head of each exchange, so that a message shows the headers it travelled with.
  var heads = {};
  events.forEach(function (ev, i) {
    if (ev.r && ev.r.event === 'http' && ev.r.exchange != null) heads[ev.r.exchange] = i;
  });
  var methods = {};
  events.forEach(function (ev) { var m = method(ev); if (m) methods[m] = true; });
  Object.keys(methods).sort().forEach(function (m) { fmethod.appendChild(el('option', '', m)); });

  function filter() {
    var d = fdir.value, m = fmethod.value, f = ffound.checked;
    visible = [];
    for (var i = 0; i < events.length; i++) {
      var ev = events[i];
      if (d && ev.d !== d) continue;
      if (m && method(ev) !== m) continue;
      if (f && !ev.f) continue;
      visible.push(i);
    }
    spacer.style.height = (visible.length * ROW) + 'px';
    shown.textContent = visible.length + ' of ' + events.length + ' events';
    draw();
  }

  function row(i) {
    var ev = events[i];
    var r = el('div', 'row ' + ev.d + (ev.f ? ' found' : '') + (i === selected ? ' sel' : ''));
    r.setAttribute('data-i', String(i));
    r.appendChild(el('span', 'n', '#' + ev.i));
    r.appendChild(el('span', 't', ev.t == null ? '' : ev.t.toFixed(3)));
    r.appendChild(el('span', 'd', ev.d === 'c2s' ? 'c\u2192s' : ev.d === 's2c' ? 's\u2192c' : ev.d));
    r.appendChild(el('span', 'm', ev.m));
    if (ev.s) r.appendChild(el('span', 'p', 'session ' + ev.s));
    if (ev.p != null) r.appendChild(el('span', 'p', (ev.p > i ? 'answered by #' : 'answers #') + ev.p));
    (ev.f || []).forEach(function (k) {
      var f = findings[k];
      r.appendChild(el('span', 'badge', f.rule + ' ' + f.level));
    });
    return r;
  }

  // Only the rows on screen (and a few around them) are in the document.
  function draw() {
    var top = Math.max(0, Math.floor(list.scrollTop / ROW) - 10);
    var end = Math.min(visible.length, top + Math.ceil(list.clientHeight / ROW) + 20);
    spacer.textContent = '';
    for (var k = top; k < end; k++) {
      var r = row(visible[k]);
      r.style.top = (k * ROW) + 'px';
      spacer.appendChild(r);
    }
    drawn = end - top;
  }

  function json(v, depth) {
    if (v === null || typeof v !== 'object') {
      var cls = typeof v === 'string' ? 's' : typeof v === 'number' ? 'num' : 'lit';
      return el('span', cls, JSON.stringify(v));
    }
    var arr = Array.isArray(v), keys = Object.keys(v);
    if (keys.length === 0) return el('span', '', arr ? '[]' : '{}');
    var d = el('details');
    d.open = depth < 2;
    d.appendChild(el('summary', '', (arr ? '[' : '{') + ' ' + keys.length + (arr ? ' items' : ' keys')));
    keys.forEach(function (k, n) {
      var line = el('div');
      if (!arr) { line.appendChild(el('span', 'k', JSON.stringify(k))); line.appendChild(document.createTextNode(': ')); }
      line.appendChild(json(v[k], depth + 1));
      if (n < keys.length - 1) line.appendChild(document.createTextNode(','));
      d.appendChild(line);
    });
    d.appendChild(el('div', '', arr ? ']' : '}'));
    return d;
  }

  function headers(title, pairs) {
    var box = el('div');
    box.appendChild(el('h3', '', title));
    var t = el('table', 'h');
    (pairs || []).forEach(function (p) {
      var tr = el('tr'); tr.appendChild(el('td', '', p[0])); tr.appendChild(el('td', '', p[1])); t.appendChild(tr);
    });
    box.appendChild(t);
    return box;
  }

  function show(i) {
    selected = i;
    var ev = events[i];
    detail.textContent = '';
    detail.appendChild(el('h2', '', '#' + ev.i + ' ' + ev.d + ': ' + ev.m));
    if (ev.t != null) detail.appendChild(el('div', 'hint', 't = ' + ev.t + ' s' + (ev.s ? ', session ' + ev.s : '')));
    if (ev.p != null) {
      var a = el('a', 'go', (ev.p > i ? 'its answer: #' : 'the request: #') + ev.p);
      a.onclick = function () { go(ev.p); };
      detail.appendChild(a);
    }
    (ev.f || []).forEach(function (k) {
      var f = findings[k], box = el('div', 'finding');
      box.appendChild(el('b', '', f.rule + ' ' + f.level + ' '));
      box.appendChild(document.createTextNode(f.message + ' '));
      box.appendChild(el('i', '', '[' + f.spec + ']'));
      if (f.expected && f.expected.length) box.appendChild(el('div', 'hint', 'the model would accept: ' + f.expected.join(', ')));
      detail.appendChild(box);
    });
    var body = el('div', 'json');
    if (typeof ev.r === 'string') {
      var parsed;
      try { parsed = JSON.parse(ev.r); } catch (e) { parsed = undefined; }
      body.appendChild(parsed === undefined ? el('pre', '', ev.r) : json(parsed, 0));
    } else {
      if (ev.r && ev.r.event === 'http') {
        detail.appendChild(headers('request ' + ev.r.method + ' ' + ev.r.path, ev.r.request_headers));
        detail.appendChild(headers('response ' + ev.r.status, ev.r.headers));
      }
      body.appendChild(json(ev.r, 0));
    }
    detail.appendChild(body);
    var head = ev.x && heads[ev.x.exchange];
    if (head != null) {
      var h = events[head].r;
      var link = el('a', 'go', 'its HTTP exchange: #' + head);
      link.onclick = function () { go(head); };
      detail.appendChild(link);
      detail.appendChild(headers('request ' + h.method + ' ' + h.path, h.request_headers));
      detail.appendChild(headers('response ' + h.status, h.headers));
    }
    if (ev.x) { detail.appendChild(el('h3', '', 'fields')); detail.appendChild(json(ev.x, 0)); }
    draw();
  }

  // Shows event i, clearing the filters that hide it.
  function go(i) {
    if (visible.indexOf(i) < 0) { fdir.value = ''; fmethod.value = ''; ffound.checked = false; filter(); }
    var k = visible.indexOf(i);
    list.scrollTop = Math.max(0, k * ROW - list.clientHeight / 2);
    show(i);
  }

  var flist = document.getElementById('flist');
  findings.forEach(function (f) {
    var li = el('li', 'fi', '#' + f.index + ' ' + f.rule + ' ' + f.level + ': ' + f.message + ' [' + f.spec + ']');
    li.onclick = function () { go(f.index); };
    flist.appendChild(li);
  });
  document.querySelector('#findings summary').textContent = 'findings (' + findings.length + ')';
  list.addEventListener('scroll', function () { window.requestAnimationFrame(draw); });
  list.addEventListener('click', function (e) {
    var r = e.target.closest('.row');
    if (r) show(Number(r.getAttribute('data-i')));
  });
  [fdir, fmethod, ffound].forEach(function (c) { c.addEventListener('change', filter); });
  window.addEventListener('resize', draw);
  filter();
  // `view.html#12` opens with event 12 shown.
  if (/^#\d+$/.test(location.hash)) go(Number(location.hash.slice(1)));
  var ready = el('div');
  ready.id = 'agentpi-ready';
  ready.hidden = true;
  ready.setAttribute('data-events', String(events.length));
  ready.setAttribute('data-findings', String(document.querySelectorAll('#flist li').length));
  ready.setAttribute('data-rendered', String(drawn));
  document.body.appendChild(ready);
})();
