// portal.js draws a dashboard of the Fabric portal from its definition
// (SPEC 2.4): sections or tabs, the dashboard's filters, and widgets
// whose data comes live from /live/... as server-sent events. Charts are
// SVG drawn here (no charting library, nothing from the network): each
// chart's container says in data-* attributes what it drew (series,
// points, band, anomalies, markers, cursor group), so that what is drawn
// can be checked in the DOM.
(function () {
  'use strict';
  var root = document.getElementById('dashboard');
  if (!root) { return; }
  var def = JSON.parse(root.getAttribute('data-def') || '{}');
  var name = root.getAttribute('data-name');
  var SVG = 'http://www.w3.org/2000/svg';
  var W = 760, H = 260, ML = 56, MR = 12, MT = 12, MB = 26;
  var COLORS = { value: '#1f5fbf', baseline: '#5b6770', predicted: '#9b3fb0', upper: '#6c93c9', lower: '#6c93c9' };
  var PALETTE = ['#1f5fbf', '#d9730d', '#2e8540', '#9b3fb0', '#b5263a', '#5b6770'];

  function el(tag, attrs, text) {
    var e = document.createElement(tag);
    setAttrs(e, attrs);
    if (text !== undefined && text !== null) { e.textContent = String(text); }
    return e;
  }
  function svg(tag, attrs) { var e = document.createElementNS(SVG, tag); setAttrs(e, attrs); return e; }
  function setAttrs(e, attrs) {
    for (var k in (attrs || {})) {
      if (attrs[k] !== undefined && attrs[k] !== null) { e.setAttribute(k, attrs[k]); }
    }
  }
  function num(v) {
    if (typeof v === 'number') { return isFinite(v) ? v : null; }
    if (typeof v === 'boolean') { return v ? 1 : 0; }
    if (typeof v === 'string' && v.trim() !== '' && isFinite(+v)) { return +v; }
    return null;
  }
  function fmtTime(t, span) {
    var iso = new Date(t).toISOString();
    if (span > 2 * 86400e3) { return iso.slice(5, 16).replace('T', ' '); }
    return span > 2 * 3600e3 ? iso.slice(11, 16) : iso.slice(11, 19);
  }
  function fmtNum(v) {
    if (v === null || v === undefined) { return ''; }
    if (typeof v !== 'number') { return typeof v === 'object' ? JSON.stringify(v) : String(v); }
    var a = Math.abs(v);
    return a >= 1e6 || (a > 0 && a < 1e-3) ? v.toExponential(2) : String(Math.round(v * 1000) / 1000);
  }

  // The dashboard's head: label, description, state, saved time.
  var head = el('div', { 'class': 'dash-head' });
  head.appendChild(el('h1', { id: 'dash-title' }, def.label || def.name || name));
  if (def.description) { head.appendChild(el('p', { 'class': 'description', id: 'dash-description' }, def.description)); }
  if (def.enabled === false) { head.appendChild(el('span', { 'class': 'badge', id: 'dash-disabled' }, 'disabled')); }
  root.appendChild(head);
  root.setAttribute('data-enabled', def.enabled === false ? 'false' : 'true');

  // Filters: a time window, text the columns must contain, values the
  // group columns must equal. Sections with show_filter false ignore them.
  var df = def.dashboard_filters || {};
  var filters = { hours: '', like: {}, eq: {} };
  var widgets = [];
  var byKey = {};
  // Cursor groups: charts of one synchronized-group show one cursor.
  var groups = {};
  function colName(x) { return typeof x === 'object' && x !== null ? (x.column || x.name || '') : String(x); }
  var likeCols = (df.columns_filter || []).map(colName).filter(Boolean);
  var groupCols = (df.group_filters || []).map(colName).filter(Boolean);
  if (df.time_filter || likeCols.length || groupCols.length) {
    var bar = el('form', { 'class': 'filters', id: 'filters' });
    bar.addEventListener('submit', function (e) { e.preventDefault(); });
    var refresh = function () { connect(); };
    if (df.time_filter) {
      var sel = el('select', { id: 'time-filter', 'aria-label': 'time window' });
      [['', 'widget window'], ['1', 'last hour'], ['6', 'last 6 hours'], ['24', 'last day'], ['168', 'last week']].forEach(function (o) {
        sel.appendChild(el('option', { value: o[0] }, o[1]));
      });
      sel.addEventListener('change', function () { filters.hours = sel.value; refresh(); });
      bar.appendChild(el('label', {}, 'Time ')).appendChild(sel);
    }
    var addInput = function (col, kind, into) {
      var inp = el('input', { 'class': kind, 'data-column': col, placeholder: col, 'aria-label': col });
      inp.addEventListener('change', function () { into[col] = inp.value; refresh(); });
      bar.appendChild(el('label', {}, col + ' ')).appendChild(inp);
    };
    likeCols.forEach(function (c) { addInput(c, 'column-filter', filters.like); });
    groupCols.forEach(function (c) { addInput(c, 'group-filter', filters.eq); });
    root.appendChild(bar);
  }
  function query() {
    var q = [];
    if (filters.hours) { q.push('hours=' + encodeURIComponent(filters.hours)); }
    Object.keys(filters.like).forEach(function (c) { if (filters.like[c]) { q.push('like.' + encodeURIComponent(c) + '=' + encodeURIComponent(filters.like[c])); } });
    Object.keys(filters.eq).forEach(function (c) { if (filters.eq[c]) { q.push('eq.' + encodeURIComponent(c) + '=' + encodeURIComponent(filters.eq[c])); } });
    return q.join('&');
  }

  // Sections, as tabs when the style is tabbed.
  var sections = def.dashboard_sections || [];
  var tabbed = def.dashboard_style === 'tabbed';
  root.setAttribute('data-style', tabbed ? 'tabbed' : 'sections');
  root.setAttribute('data-sections', String(sections.length));
  var tabs = tabbed ? el('nav', { 'class': 'tabs', id: 'tabs', role: 'tablist' }) : null;
  if (tabs) { root.appendChild(tabs); }
  var secEls = [];
  sections.forEach(function (sec, si) {
    var filtered = sec.show_filter !== false;
    var s = el('section', { 'class': 'section', 'data-index': String(si), 'data-show-filter': String(filtered) });
    if (tabs) {
      var b = el('button', { type: 'button', 'class': 'tab', role: 'tab', 'data-index': String(si) }, sec.title || ('Tab ' + (si + 1)));
      b.addEventListener('click', function () { select(si); });
      tabs.appendChild(b);
    } else if (sec.title) {
      s.appendChild(el('h2', {}, sec.title));
    }
    var grid = el('div', { 'class': 'widgets' });
    s.appendChild(grid);
    (sec.widgets || []).forEach(function (wd, wi) { grid.appendChild(widget(wd, si, wi, filtered)); });
    root.appendChild(s);
    secEls.push(s);
  });
  function select(i) {
    secEls.forEach(function (s, j) { s.hidden = j !== i; });
    if (tabs) {
      Array.prototype.forEach.call(tabs.children, function (b, j) { b.setAttribute('aria-selected', String(j === i)); b.classList.toggle('current', j === i); });
    }
    widgets.forEach(function (w) { if (w.redraw) { w.redraw(); } });
  }
  if (tabbed && secEls.length) { select(0); }
  if (!sections.length) { root.appendChild(el('p', { 'class': 'empty' }, 'This dashboard has no sections.')); }
  // One live connection for all the page's widgets (a browser opens few
  // connections to one server); opened again when the filters change.
  var es = null;
  function connect() {
    if (es) { es.close(); }
    if (!Object.keys(byKey).length) { return; }
    var q = query();
    es = new EventSource('/live/' + encodeURIComponent(name) + (q ? '?' + q : ''));
    es.addEventListener('view', function (e) {
      var m = JSON.parse(e.data);
      if (byKey[m.w]) { byKey[m.w].view(m.view); }
    });
    es.addEventListener('failure', function (e) {
      var m = JSON.parse(e.data);
      if (byKey[m.w]) { byKey[m.w].fail(m.error); }
    });
  }
  connect();
  if (def.debug) { root.appendChild(el('pre', { 'class': 'debug', id: 'debug' }, JSON.stringify(def, null, 2))); }
  if (def.saved_time) { root.appendChild(el('p', { 'class': 'saved', id: 'saved-time' }, 'Saved ' + def.saved_time)); }

  // A widget: its frame, what it draws, and its live connection.
  function widget(wd, si, wi, filtered) {
    var type = wd.widget_type || 'unknown';
    var box = el('div', { 'class': 'widget', 'data-widget-type': type, 'data-section': String(si), 'data-widget': String(wi), 'data-updates': '0' });
    if (wd.widget_id) { box.setAttribute('data-widget-id', wd.widget_id); box.id = 'widget-' + wd.widget_id; }
    box.appendChild(el('h3', { 'class': 'widget-title' }, wd.title || ''));
    var body = el('div', { 'class': 'widget-body' });
    box.appendChild(body);
    var status = el('p', { 'class': 'widget-status' });
    box.appendChild(status);
    var drawer;
    if (type === 'shaded_chart' || type === 'line_chart' || type === 'bar_chart' || type === 'timeseries') {
      drawer = chart(wd, box, body);
    } else if (type === 'table') {
      drawer = table(wd, box, body);
    } else if (type === 'counter') {
      drawer = counter(wd, box, body);
    } else {
      body.appendChild(el('p', { 'class': 'label-text' }, wd.text || wd.description || ''));
    }
    var w = { key: si + '.' + wi, last: null };
    w.redraw = function () { if (drawer && w.last) { drawer(w.last); } };
    w.view = function (v) {
      w.last = v;
      status.textContent = v.capped ? 'showing the newest records only' : '';
      box.classList.remove('failed');
      box.setAttribute('data-total', String(v.total));
      box.setAttribute('data-points', String(v.points));
      box.setAttribute('data-source', v.source);
      drawer(v);
      box.setAttribute('data-updates', String(+box.getAttribute('data-updates') + 1));
    };
    w.fail = function (msg) { status.textContent = msg; box.classList.add('failed'); };
    if (wd.stream && drawer) { byKey[w.key] = w; }
    widgets.push(w);
    return box;
  }

  function chart(wd, box, body) {
    var type = wd.widget_type;
    var shaded = type === 'shaded_chart';
    box.setAttribute('data-x', wd.ts_column || 'stream-time');
    if (wd.duration_hours) { box.setAttribute('data-duration-hours', String(wd.duration_hours)); }
    var group = wd['synchronized-group'];
    var s = svg('svg', { 'class': 'chart', viewBox: '0 0 ' + W + ' ' + H, role: 'img', 'aria-label': wd.title || type });
    body.appendChild(s);
    var legend = el('div', { 'class': 'legend' });
    body.appendChild(legend);
    var cursor = svg('line', { 'class': 'cursor', y1: MT, y2: H - MB, visibility: 'hidden' });
    var state = { sx: null, xmin: 0, xmax: 1 };
    var me = {
      show: function (t) {
        if (t === null || t < state.xmin || t > state.xmax || !state.sx) { cursor.setAttribute('visibility', 'hidden'); box.removeAttribute('data-cursor'); return; }
        var x = state.sx(t);
        setAttrs(cursor, { x1: x, x2: x, visibility: 'visible' });
        box.setAttribute('data-cursor', String(Math.round(t)));
      }
    };
    if (group !== undefined && group !== null) {
      box.setAttribute('data-sync-group', String(group));
      (groups[group] = groups[group] || []).push(me);
    }
    var peers = function () { return group !== undefined && group !== null ? groups[group] : [me]; };
    s.addEventListener('mousemove', function (e) {
      if (!state.sx) { return; }
      var r = s.getBoundingClientRect();
      var x = (e.clientX - r.left) * W / r.width;
      var t = state.xmin + (x - ML) / (W - ML - MR) * (state.xmax - state.xmin);
      peers().forEach(function (p) { p.show(t); });
    });
    s.addEventListener('mouseleave', function () { peers().forEach(function (p) { p.show(null); }); });

    // The series: for a shaded chart its columns by role; for line and
    // bar charts the columns listed.
    var series = [];
    if (shaded) {
      [['value', wd.value_column], ['baseline', wd.baseline_column], ['predicted', wd.predicted_column]].forEach(function (p) {
        if (p[1]) { series.push({ key: p[0], col: p[1], color: COLORS[p[0]], dash: p[0] === 'predicted' ? '6 4' : null }); }
      });
      if (wd.upperBound_column && !wd.lowerBound_column) { series.push({ key: 'upper', col: wd.upperBound_column, color: COLORS.upper, dash: '2 3' }); }
      if (wd.lowerBound_column && !wd.upperBound_column) { series.push({ key: 'lower', col: wd.lowerBound_column, color: COLORS.lower, dash: '2 3' }); }
    } else {
      var cols = wd.columns && wd.columns.length ? wd.columns : (wd.column ? [wd.column] : []);
      cols.forEach(function (c, i) { series.push({ key: c, col: c, color: PALETTE[i % PALETTE.length] }); });
    }
    var band = shaded && wd.upperBound_column && wd.lowerBound_column;
    var showMarkers = wd['show-markers'] !== false;
    var markers = showMarkers ? (wd['markers-def'] || []) : [];
    legend.innerHTML = '';
    series.forEach(function (sr) {
      var item = el('span', { 'class': 'legend-item', 'data-series': sr.key });
      item.appendChild(el('i', { 'class': 'swatch', style: null })).setAttribute('data-color', sr.color);
      item.appendChild(document.createTextNode(sr.col));
      legend.appendChild(item);
    });
    if (band) { legend.appendChild(el('span', { 'class': 'legend-item band-item', 'data-series': 'band' }, wd.lowerBound_column + ' – ' + wd.upperBound_column)); }
    if (wd.anomalies_column) { legend.appendChild(el('span', { 'class': 'legend-item anomaly-item', 'data-series': 'anomalies' }, wd.anomalies_column)); }
    Array.prototype.forEach.call(legend.querySelectorAll('i.swatch'), function (i) { i.style.background = i.getAttribute('data-color'); });

    return function draw(v) {
      while (s.firstChild) { s.removeChild(s.firstChild); }
      var rows = v.rows || [];
      var ts = rows.map(function (r) { return r.t; });
      var xmin = v.from > 0 ? v.from : Math.min.apply(null, ts.length ? ts : [v.to - 3600e3]);
      var xmax = v.from > 0 ? v.to : Math.max.apply(null, ts.length ? ts : [v.to]);
      if (xmax <= xmin) { xmin -= 30e3; xmax += 30e3; }
      var ys = [];
      rows.forEach(function (r) {
        series.forEach(function (sr) { var y = num(r.f[sr.col]); if (y !== null) { ys.push(y); } });
        if (band) { [wd.upperBound_column, wd.lowerBound_column].forEach(function (c) { var y = num(r.f[c]); if (y !== null) { ys.push(y); } }); }
      });
      var anomalyY = function (r) {
        var a = r.f[wd.anomalies_column];
        if (typeof a === 'number' && a !== 1) { return a; }
        var cands = [wd.value_column, wd.baseline_column, wd.predicted_column];
        for (var i = 0; i < cands.length; i++) { if (cands[i] && num(r.f[cands[i]]) !== null) { return num(r.f[cands[i]]); } }
        return num(a);
      };
      var anomalies = (wd.anomalies_column ? v.anomalies || [] : []).filter(function (r) { return r.t >= xmin && r.t <= xmax; });
      anomalies.forEach(function (r) { var y = anomalyY(r); if (y !== null) { ys.push(y); } });
      if (type === 'bar_chart') { ys.push(0); }
      var ymin = ys.length ? Math.min.apply(null, ys) : 0, ymax = ys.length ? Math.max.apply(null, ys) : 1;
      if (ymax === ymin) { ymin -= 1; ymax += 1; }
      var pad = (ymax - ymin) * 0.06; ymin -= pad; ymax += pad;
      var sx = function (t) { return ML + (t - xmin) / (xmax - xmin) * (W - ML - MR); };
      var sy = function (y) { return H - MB - (y - ymin) / (ymax - ymin) * (H - MT - MB); };
      state.sx = sx; state.xmin = xmin; state.xmax = xmax;
      axes(s, xmin, xmax, ymin, ymax, sx, sy);
      var drawn = [];
      if (band) {
        var up = [], lo = [];
        rows.forEach(function (r) {
          var u = num(r.f[wd.upperBound_column]), l = num(r.f[wd.lowerBound_column]);
          if (u !== null && l !== null) { up.push([sx(r.t), sy(u)]); lo.push([sx(r.t), sy(l)]); }
        });
        if (up.length) {
          var d = 'M' + up.map(function (p) { return p[0].toFixed(1) + ',' + p[1].toFixed(1); }).join('L') +
            'L' + lo.reverse().map(function (p) { return p[0].toFixed(1) + ',' + p[1].toFixed(1); }).join('L') + 'Z';
          s.appendChild(svg('path', { 'class': 'band', d: d, 'data-series': 'band', 'data-points': String(up.length) }));
        }
      }
      series.forEach(function (sr) {
        if (type === 'bar_chart') {
          var bw = Math.max(1, (W - ML - MR) / Math.max(1, rows.length) / Math.max(1, series.length) * 0.8);
          var g = svg('g', { 'class': 'series bars', 'data-series': sr.key });
          var n = 0, k = series.indexOf(sr);
          rows.forEach(function (r) {
            var y = num(r.f[sr.col]);
            if (y === null) { return; }
            var y0 = sy(Math.max(0, ymin)), y1 = sy(y);
            g.appendChild(svg('rect', { 'class': 'bar', x: (sx(r.t) - bw * series.length / 2 + k * bw).toFixed(1), y: Math.min(y0, y1).toFixed(1), width: bw.toFixed(1), height: Math.abs(y0 - y1).toFixed(1), fill: sr.color }));
            n++;
          });
          g.setAttribute('data-points', String(n));
          s.appendChild(g);
          drawn.push(sr.key);
          return;
        }
        var d = '', n = 0, pen = false;
        rows.forEach(function (r) {
          var y = num(r.f[sr.col]);
          if (y === null) { pen = false; return; }
          d += (pen ? 'L' : 'M') + sx(r.t).toFixed(1) + ',' + sy(y).toFixed(1);
          pen = true; n++;
        });
        s.appendChild(svg('path', { 'class': 'series', d: d || 'M0,0', 'data-series': sr.key, 'data-column': sr.col, 'data-points': String(n), stroke: sr.color, 'stroke-dasharray': sr.dash }));
        drawn.push(sr.key);
      });
      var na = 0;
      anomalies.forEach(function (r) {
        var y = anomalyY(r);
        if (y === null) { return; }
        var c = svg('circle', { 'class': 'anomaly', cx: sx(r.t).toFixed(1), cy: sy(y).toFixed(1), r: 4, 'data-t': String(r.t) });
        c.appendChild(svg('title', {})).textContent = wd.anomalies_column + ' at ' + fmtTime(r.t, 0) + ': ' + fmtNum(y);
        s.appendChild(c);
        na++;
      });
      var nm = 0;
      markers.forEach(function (m) {
        var t = (+m.timestamp) * 1000;
        if (!(t >= xmin && t <= xmax)) { return; }
        var x = sx(t);
        var g = svg('g', { 'class': 'marker', 'data-message': m.message || '', 'data-t': String(t) });
        g.appendChild(svg('line', { x1: x, x2: x, y1: MT, y2: H - MB, stroke: m.color || '#d9730d', 'class': 'marker-line' }));
        var label = svg('text', { x: x + 3, y: MT + 10, 'class': 'marker-label', fill: m.color || '#d9730d' });
        label.textContent = m.message || '';
        g.appendChild(label);
        s.appendChild(g);
        nm++;
      });
      s.appendChild(cursor);
      box.setAttribute('data-series', drawn.join(' '));
      box.setAttribute('data-series-count', String(drawn.length));
      box.setAttribute('data-band', band ? '1' : '0');
      box.setAttribute('data-anomalies', String(na));
      box.setAttribute('data-markers', String(nm));
      box.setAttribute('data-downsampled', v.points < v.total ? '1' : '0');
    };
  }

  // niceStep is a round step (1, 2 or 5 times a power of ten) near raw.
  function niceStep(raw) {
    var p = Math.pow(10, Math.floor(Math.log10(raw)));
    var f = raw / p;
    return (f < 1.5 ? 1 : f < 3.5 ? 2 : f < 7.5 ? 5 : 10) * p;
  }

  function axes(s, xmin, xmax, ymin, ymax, sx, sy) {
    var g = svg('g', { 'class': 'axes' });
    g.appendChild(svg('line', { x1: ML, x2: W - MR, y1: H - MB, y2: H - MB, 'class': 'axis' }));
    g.appendChild(svg('line', { x1: ML, x2: ML, y1: MT, y2: H - MB, 'class': 'axis' }));
    var step = niceStep((ymax - ymin) / 4);
    for (var y = Math.ceil(ymin / step) * step; y <= ymax; y += step) {
      var yv = Math.round(y / step) * step;
      g.appendChild(svg('line', { x1: ML, x2: W - MR, y1: sy(yv), y2: sy(yv), 'class': 'grid' }));
      var ty = svg('text', { x: ML - 6, y: sy(yv) + 3, 'class': 'tick', 'text-anchor': 'end' });
      ty.textContent = fmtNum(yv);
      g.appendChild(ty);
    }
    var span = xmax - xmin;
    for (var i = 0; i <= 4; i++) {
      var t = xmin + span * i / 4;
      var tx = svg('text', { x: sx(t), y: H - 8, 'class': 'tick', 'text-anchor': i === 0 ? 'start' : i === 4 ? 'end' : 'middle' });
      tx.textContent = fmtTime(t, span) + (i === 4 ? ' UTC' : '');
      g.appendChild(tx);
    }
    s.appendChild(g);
  }

  function table(wd, box, body) {
    var t = el('table', { 'class': 'widget-table' });
    body.appendChild(t);
    return function (v) {
      var cols = v.columns || [];
      t.innerHTML = '';
      var hr = t.appendChild(el('thead')).appendChild(el('tr'));
      cols.forEach(function (c) { hr.appendChild(el('th', {}, c)); });
      var tb = t.appendChild(el('tbody'));
      (v.rows || []).forEach(function (r) {
        var tr = tb.appendChild(el('tr', { 'class': 'row' }));
        cols.forEach(function (c) { tr.appendChild(el('td', {}, fmtNum(r.f[c]))); });
      });
      box.setAttribute('data-rows', String((v.rows || []).length));
      box.setAttribute('data-columns', cols.join(' '));
    };
  }

  function counter(wd, box, body) {
    var out = el('div', { 'class': 'counter-value' }, '–');
    body.appendChild(out);
    return function (v) {
      var value = v.total;
      if (wd.column) {
        var rows = v.rows || [];
        value = rows.length ? rows[rows.length - 1].f[wd.column] : null;
      }
      out.textContent = fmtNum(value);
      box.setAttribute('data-value', value === null || value === undefined ? '' : String(value));
    };
  }
})();
