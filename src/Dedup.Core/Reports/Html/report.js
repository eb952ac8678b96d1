'use strict';
// The report page: reads the data block as text and builds every element with createElement/textContent, so a
// name is only ever text. Names arrive escaped as the text report shows them (a byte that is not UTF-8 as \xHH).
(function () {
  var data = JSON.parse(document.getElementById('report-data').textContent);
  var D = data.d, SEP = data.m.sep, NDIRS = D.length / 2, ROW = 28, MAX_TILES = 60, MAX_SELECTION = 5000, MAX_ERRORS = 1000;
  var KINDS = ['file', 'media', 'machines'];
  var LABELS = { file: 'whole file', media: 'media payload', machines: 'machines', folders: 'folder copy', partial: 'folders differ' };
  var dirText = new Array(NDIRS);

  function $(id) { return document.getElementById(id); }
  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) { e.className = cls; }
    if (text !== undefined && text !== null) { e.textContent = text; }
    return e;
  }
  function num(n) { return n.toLocaleString('en-US'); }
  function bytes(n) {
    var units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'], u = 0, v = n;
    while (v >= 1024 && u < units.length - 1) { v /= 1024; u++; }
    return u === 0 ? n + ' B' : v.toFixed(1) + ' ' + units[u];
  }
  function join(folder, name) { return folder.charAt(folder.length - 1) === SEP ? folder + name : folder + SEP + name; }
  function dirPath(i) {
    if (dirText[i] !== undefined) { return dirText[i]; }
    var chain = [], j = i;
    while (j >= 0 && dirText[j] === undefined) { chain.push(j); j = D[2 * j]; }
    var text = j >= 0 ? dirText[j] : null;
    for (var k = chain.length - 1; k >= 0; k--) {
      var n = chain[k];
      text = text === null ? D[2 * n + 1] : join(text, D[2 * n + 1]);
      dirText[n] = text;
    }
    return text;
  }
  function pathOf(folder, name) { return folder < 0 ? name : join(dirPath(folder), name); }
  function under(dir, folder) {
    for (var j = dir; j >= 0; j = D[2 * j]) { if (j === folder) { return true; } }
    return false;
  }

  // A shell word for a name shown escaped: plain when safe, in single quotes when it holds no escape, else in
  // bash's $'...', whose escapes are the report's (\\, \n, \t, \e, \xHH: the exact byte), with \u{X} as \UXXXXXXXX.
  function shellWord(text) {
    if (/^[A-Za-z0-9_.,:@%+=\/-]+$/.test(text)) { return text; }
    if (text.indexOf('\\') < 0) { return "'" + text.replace(/'/g, "'\\''") + "'"; }
    return "$'" + text.replace(/\\(?:u\{([0-9A-F]+)\}|[^])|'/g, function (m, hex) {
      return m === "'" ? "\\'" : hex ? '\\U' + ('00000000' + hex).slice(-8) : m;
    }) + "'";
  }

  // Items: file groups and folder groups, largest waste first. A group's waste is counted once per content, as the
  // JSON report's summary counts it: every copy but one (for media payloads, all but the largest file).
  var items = [];
  data.g.forEach(function (g) {
    var x = g[4] || {}, n = g[3].length / 2, wasted = g[1] * (n - 1);
    if (x.len) {
      var sum = 0, max = 0;
      x.len.forEach(function (l) { sum += l; max = Math.max(max, l); });
      wasted = sum - max;
    }
    items.push({ type: KINDS[g[0]], size: g[1], wasted: wasted, count: n, g: g, x: x });
  });
  data.f.forEach(function (f) {
    items.push({ type: f[0] ? 'folders' : 'partial', size: f[2], wasted: f[3], count: f[5].length, f: f });
  });
  items.sort(function (a, b) { return b.wasted - a.wasted || b.size - a.size; });

  // A copy's role: 'keep', 'remove' (what the command acts on), or '' (left alone: another machine's, matched by
  // SHA-256 only, or in a group no local action touches). Only 'keep' and 'remove' copies are ever named in a command.
  function filesOf(item) { // [{path, folder, kept, role, machine, sha, links: [path]}]
    if (item.files) { return item.files; }
    var out = [];
    if (item.g) {
      var flat = item.g[3], x = item.x, acted = item.g[2] >= 0 && item.type !== 'partial';
      for (var i = 0; i < flat.length / 2; i++) {
        var kept = i === item.g[2], sha = !!(x.s && x.s[i]);
        out.push({ path: pathOf(flat[2 * i], flat[2 * i + 1]), folder: flat[2 * i], kept: kept, role: kept ? 'keep' : acted && !sha ? 'remove' : '', machine: x.m ? x.m[i] : null, sha: sha, length: x.len ? x.len[i] : item.size, links: [] });
      }
      for (var l = 0; x.l && l < x.l.length; l += 3) { out[x.l[l]].links.push(pathOf(x.l[l + 1], x.l[l + 2])); }
    } else {
      item.f[5].forEach(function (d, i) { var kept = i === item.f[4]; out.push({ path: dirPath(d), folder: d, kept: kept, role: kept ? 'keep' : item.f[0] ? 'remove' : '', machine: null, sha: false, links: [] }); });
    }
    item.files = out;
    return out;
  }
  function keptFirst(item) {
    var files = filesOf(item).slice();
    files.sort(function (a, b) { return (b.kept ? 1 : 0) - (a.kept ? 1 : 0); });
    return files;
  }
  function commandWords(item) { // the names to give, kept first: the default first-root rule then keeps it
    var words = [];
    keptFirst(item).forEach(function (f) {
      if (!f.role) { return; } // never a copy of another machine or one matched by SHA-256 only
      words.push(shellWord(f.path));
      f.links.forEach(function (p) { words.push(shellWord(p)); });
    });
    return words;
  }
  function actionable(item) {
    return item.g ? item.g[2] >= 0 : item.type === 'folders';
  }
  function groupCommand(item) {
    var option = item.type === 'media' ? ' --media' : item.type === 'folders' ? ' --folders' : '';
    return 'dedup delete' + option + ' -- ' + commandWords(item).join(' ');
  }

  // Wasted bytes by folder: each copy that would go counts in its folder (never another machine's: its path is not
  // one of this machine's folders), then every folder adds its children's.
  var direct = new Float64Array(NDIRS), total, kids = {}, tops = [];
  items.forEach(function (item) {
    if (!actionable(item)) { return; }
    filesOf(item).forEach(function (f) {
      if (f.role === 'remove' && f.folder >= 0) { direct[f.folder] += item.g ? f.length : item.wasted / (item.count - 1); }
    });
  });
  total = Float64Array.from(direct);
  for (var i = NDIRS - 1; i >= 0; i--) { if (D[2 * i] >= 0) { total[D[2 * i]] += total[i]; } }
  for (var j = 0; j < NDIRS; j++) {
    if (total[j] > 0) { if (D[2 * j] < 0) { tops.push(j); } else { (kids[D[2 * j]] = kids[D[2 * j]] || []).push(j); } }
  }

  var state = { text: '', min: 0, kind: '', folder: -1, view: items, current: -1 };
  var mapPath = [];
  (function descend() { // start where the waste starts to branch
    var children = tops;
    while (children.length === 1 && (mapPath.length === 0 || direct[mapPath[mapPath.length - 1]] === 0)) {
      mapPath.push(children[0]);
      children = kids[children[0]] || [];
    }
  })();

  function squarify(values, x, y, w, h) {
    var sum = values.reduce(function (a, b) { return a + b; }, 0), scale = w * h / sum, rects = [], row = [];
    function worst(r, side) {
      var s = 0, max = 0, min = Infinity;
      r.forEach(function (a) { s += a; max = Math.max(max, a); min = Math.min(min, a); });
      return Math.max(side * side * max / (s * s), (s * s) / (side * side * min));
    }
    function place(r) {
      var s = r.reduce(function (a, b) { return a + b; }, 0);
      if (w >= h) {
        var cw = s / h, yy = y;
        r.forEach(function (a) { rects.push([x, yy, cw, a / cw]); yy += a / cw; });
        x += cw; w -= cw;
      } else {
        var rh = s / w, xx = x;
        r.forEach(function (a) { rects.push([xx, y, a / rh, rh]); xx += a / rh; });
        y += rh; h -= rh;
      }
    }
    values.forEach(function (v) {
      var a = v * scale, side = Math.min(w, h);
      if (row.length > 0 && worst(row.concat([a]), side) > worst(row, side)) { place(row); row = []; }
      row.push(a);
    });
    if (row.length > 0) { place(row); }
    return rects;
  }

  function renderMap() {
    var map = $('map'), crumbs = $('crumbs');
    map.textContent = '';
    crumbs.textContent = '';
    var all = el('button', null, 'All');
    all.type = 'button';
    all.addEventListener('click', function () { mapPath = []; state.folder = -1; renderMap(); applyFilter(); });
    crumbs.appendChild(all);
    mapPath.forEach(function (d, depth) {
      crumbs.appendChild(el('span', 'sep', '›'));
      var b = el('button', null, D[2 * d + 1]);
      b.type = 'button';
      b.addEventListener('click', function () { mapPath = mapPath.slice(0, depth + 1); state.folder = d; renderMap(); applyFilter(); });
      crumbs.appendChild(b);
    });
    var here = mapPath.length ? mapPath[mapPath.length - 1] : -1;
    var children = (here < 0 ? tops : kids[here] || []).slice().sort(function (a, b) { return total[b] - total[a]; });
    var tiles = children.slice(0, MAX_TILES).map(function (d) { return { dir: d, value: total[d], label: D[2 * d + 1] }; });
    var rest = children.slice(MAX_TILES).reduce(function (a, d) { return a + total[d]; }, 0);
    if (rest > 0) { tiles.push({ dir: -1, value: rest, label: num(children.length - MAX_TILES) + ' more folders' }); }
    if (here >= 0 && direct[here] > 0) { tiles.push({ dir: -1, value: direct[here], label: 'copies in this folder' }); }
    if (tiles.length === 0) { map.appendChild(el('p', 'muted', 'No wasted bytes here.')); return; }
    tiles.sort(function (a, b) { return b.value - a.value; });
    var rects = squarify(tiles.map(function (t) { return t.value; }), 0, 0, map.clientWidth || 800, map.clientHeight || 360);
    tiles.forEach(function (t, k) {
      var r = rects[k], tile = el('div', t.dir < 0 ? 'tile files' : 'tile');
      tile.style.left = r[0] + 'px'; tile.style.top = r[1] + 'px'; tile.style.width = r[2] + 'px'; tile.style.height = r[3] + 'px';
      tile.appendChild(el('span', null, t.label));
      tile.appendChild(el('span', 'muted', bytes(t.value)));
      tile.title = (t.dir >= 0 ? dirPath(t.dir) : t.label) + ': ' + bytes(t.value);
      if (t.dir >= 0) {
        tile.addEventListener('click', function () { mapPath.push(t.dir); state.folder = t.dir; renderMap(); applyFilter(); });
      }
      map.appendChild(tile);
    });
  }

  var HERE = data.s.catalog ? data.s.catalog.machine : null;
  function local(f) { return f.role !== '' || !f.machine || f.machine === HERE; }
  function matches(item) {
    if (item.size < state.min || (state.kind && item.type !== state.kind)) { return false; }
    if (state.folder < 0 && !state.text) { return true; }
    var files = filesOf(item);
    for (var k = 0; k < files.length; k++) {
      var f = files[k];
      if ((state.folder < 0 || (local(f) && under(f.folder, state.folder))) &&
          (!state.text || f.path.toLowerCase().indexOf(state.text) >= 0 || f.links.some(function (p) { return p.toLowerCase().indexOf(state.text) >= 0; }))) {
        return true;
      }
    }
    return false;
  }

  function applyFilter() {
    state.view = items.filter(matches);
    var list = $('list');
    $('spacer').style.height = (state.view.length * ROW) + 'px';
    list.scrollTop = 0;
    $('shown').textContent = 'Showing ' + num(state.view.length) + ' of ' + num(items.length) + ' groups' +
      (state.folder >= 0 ? ' with a copy under ' + dirPath(state.folder) : '') + '.';
    $('selection-command').textContent = '';
    renderRows();
    select(state.view.length ? 0 : -1);
  }

  function renderRows() {
    var list = $('list'), spacer = $('spacer');
    while (list.lastChild !== spacer) { list.removeChild(list.lastChild); }
    var height = list.clientHeight || 420;
    var first = Math.max(0, Math.floor(list.scrollTop / ROW) - 5);
    var last = Math.min(state.view.length, Math.ceil((list.scrollTop + height) / ROW) + 5);
    for (var k = first; k < last; k++) {
      var item = state.view[k], files = filesOf(item), shown = files.filter(function (f) { return f.kept; })[0] || files[0];
      var row = el('div', k === state.current ? 'row current' : 'row');
      row.style.top = (k * ROW) + 'px';
      row.setAttribute('data-index', String(k));
      row.appendChild(el('span', 'waste', bytes(item.wasted)));
      row.appendChild(el('span', 'count', item.count + ' × ' + bytes(item.size)));
      row.appendChild(el('span', 'kind', LABELS[item.type]));
      row.appendChild(el('span', 'path', shown.path));
      row.addEventListener('click', onRowClick);
      list.appendChild(row);
    }
  }
  function onRowClick(event) { select(Number(event.currentTarget.getAttribute('data-index'))); renderRows(); }

  function copyButton(pre) {
    var b = el('button', null, 'Copy');
    b.type = 'button';
    b.addEventListener('click', function () {
      var done = function () { b.textContent = 'Copied'; };
      if (navigator.clipboard) { navigator.clipboard.writeText(pre.textContent).then(done, function () { selectText(pre); }); } else { selectText(pre); }
    });
    return b;
  }
  function selectText(node) { var r = document.createRange(); r.selectNodeContents(node); var s = window.getSelection(); s.removeAllRanges(); s.addRange(r); }

  function select(k) {
    state.current = k;
    var detail = $('detail');
    detail.textContent = '';
    if (k < 0) { return; }
    var item = state.view[k];
    var title = item.g
      ? item.count + ' copies of ' + bytes(item.size) + ' (' + num(item.size) + ' bytes)' + ', ' + bytes(item.wasted) + ' wasted'
      : item.count + ' folders of ' + num(item.f[1]) + ' files, ' + bytes(item.f[2]) + ' each, ' + bytes(item.wasted) + ' wasted';
    detail.appendChild(el('h3', null, title));
    var notes = [LABELS[item.type]];
    if (item.x && item.x.fmt) { notes.push(item.x.fmt + ', tags ignored'); }
    if ((item.x && item.x.h) || (item.f && !item.f[6])) { notes.push('matched by hash, not byte for byte'); }
    detail.appendChild(el('p', 'muted', notes.join('; ')));
    var ul = el('ul');
    filesOf(item).forEach(function (f) {
      var li = el('li');
      li.appendChild(el('span', f.kept ? 'badge keep' : 'badge', f.role));
      li.appendChild(el('span', 'path', f.path + (item.f ? SEP : '')));
      if (f.machine) { li.appendChild(el('span', 'tag machine', f.machine)); }
      if (f.sha) { li.appendChild(el('span', 'tag sha', 'SHA-256 only')); }
      ul.appendChild(li);
      f.links.forEach(function (p) { var link = el('li'); link.appendChild(el('span', 'badge', '= link')); link.appendChild(el('span', 'path', p)); ul.appendChild(link); });
    });
    detail.appendChild(ul);
    if (item.f && item.f[7].length) {
      var diffs = el('ul');
      item.f[7].forEach(function (d) { var li = el('li'); li.appendChild(el('span', 'badge', d[0])); li.appendChild(el('span', 'path', d[1])); diffs.appendChild(li); });
      detail.appendChild(el('p', null, 'Entries that differ:'));
      detail.appendChild(diffs);
    }
    if (actionable(item)) {
      detail.appendChild(el('p', null, item.type === 'machines'
        ? 'To remove the other copies compared byte for byte on ' + (filesOf(item).filter(function (f) { return f.kept; })[0].machine || 'this machine') + ' (copies of other machines and those matched by SHA-256 only are left alone; the kept one is named first; dedup compares each with it again and asks before acting):'
        : 'To remove the other copies (the kept one is named first; dedup compares each with it again and asks before acting):'));
      var pre = el('pre', null, groupCommand(item));
      pre.id = 'command';
      detail.appendChild(pre);
      detail.appendChild(copyButton(pre));
    } else {
      detail.appendChild(el('p', 'muted', item.type === 'machines' ? 'Fewer than two copies here were compared byte for byte: act on each machine.' : 'These folders are not copies of each other: compare them before removing anything.'));
    }
  }

  function selectionCommand() {
    var media = state.kind === 'media', words = [], groups = 0;
    for (var k = 0; k < state.view.length && groups < MAX_SELECTION; k++) {
      var item = state.view[k];
      if ((media ? item.type === 'media' : item.type === 'file' || item.type === 'machines') && actionable(item)) { words.push.apply(words, commandWords(item)); groups++; }
    }
    var pre = $('selection-command');
    if (groups === 0) { pre.textContent = 'No whole-file group among those shown (choose the kind "media payload" for media groups).'; return; }
    pre.textContent = 'dedup delete' + (media ? ' --media' : '') + " --files-from <(printf '%s\\0' " + words.join(' ') + ')';
    var more = state.view.length > groups ? ' (' + num(groups) + ' ' + (media ? 'media' : 'whole-file') + ' groups of those shown; narrow the filter for the others)' : '';
    pre.setAttribute('data-groups', String(groups));
    pre.title = 'bash or zsh' + more;
  }

  function renderTotals() {
    var s = data.s, m = data.m, dl = $('totals');
    function row(name, value) { dl.appendChild(el('dt', null, name)); var dd = el('dd', null, value); dd.setAttribute('data-total', name); dl.appendChild(dd); }
    row('Files scanned', num(s.files));
    row('Duplicate groups', num(s.groups));
    row('Duplicate files', num(s.dup));
    row('Wasted', bytes(s.wasted) + ' (' + num(s.wasted) + ' bytes)');
    if (s.folders) { row('Folder copies', num(s.folders.copied) + ' folders in ' + num(s.folders.groups) + ' groups (' + num(s.folders.files) + ' files), ' + bytes(s.folders.wasted) + ' wasted; ' + num(s.folders.partial) + ' partial overlaps'); }
    if (s.catalog) { row('Catalog', s.catalog.machine + ': ' + num(s.catalog.recorded) + ' files recorded, ' + num(s.catalog.across) + ' groups across machines' + (s.catalog.error ? '; error: ' + s.catalog.error : '')); }
    row('Errors', num(s.errors));
    if (s.read !== undefined) { row('Bytes read', bytes(s.read)); }
    if (s.secs !== undefined) { row('Time', s.secs + ' s'); }
    var roots = [];
    for (var r = 0; r < m.roots.length; r += 2) { roots.push(pathOf(m.roots[r], m.roots[r + 1])); }
    row('Roots', roots.length ? roots.join(', ') : 'not recorded');
    if (m.opt) { row('Options', m.opt); }
    $('where').textContent = 'Written ' + m.at + ' on ' + m.host + '.';
  }

  function renderErrors() {
    var ol = $('errors');
    data.e.slice(0, MAX_ERRORS).forEach(function (e) {
      var li = el('li');
      li.appendChild(el('span', 'path', e[0]));
      li.appendChild(document.createTextNode(' (' + e[1] + '): ' + e[2]));
      ol.appendChild(li);
    });
    if (data.e.length === 0) { ol.appendChild(el('li', 'muted', 'None.')); }
    if (data.e.length > MAX_ERRORS) { ol.appendChild(el('li', 'muted', '… and ' + num(data.e.length - MAX_ERRORS) + ' more.')); }
  }

  // Filters from the address (#q=text&kind=media&min=1024&group=3), so a view can be linked; then from the form.
  var hash = {};
  location.hash.replace(/^#/, '').split('&').forEach(function (part) {
    var eq = part.indexOf('=');
    if (eq > 0) { try { hash[part.slice(0, eq)] = decodeURIComponent(part.slice(eq + 1)); } catch (e) { /* a malformed part is ignored */ } }
  });
  if (hash.q) { $('filter-text').value = hash.q; state.text = hash.q.toLowerCase(); }
  if (hash.kind && LABELS[hash.kind]) { $('filter-kind').value = hash.kind; state.kind = hash.kind; }
  if (hash.min) { state.min = Number(hash.min) || 0; }
  $('filter-text').addEventListener('input', function (e) { state.text = e.target.value.toLowerCase(); applyFilter(); });
  $('filter-size').addEventListener('change', function (e) { state.min = Number(e.target.value); applyFilter(); });
  $('filter-kind').addEventListener('change', function (e) { state.kind = e.target.value; applyFilter(); });
  $('filters').addEventListener('submit', function (e) { e.preventDefault(); });
  $('list').addEventListener('scroll', renderRows);
  $('selection-button').addEventListener('click', selectionCommand);

  renderTotals();
  renderMap();
  if (mapPath.length) { state.folder = -1; }
  applyFilter();
  if (hash.group) { select(Math.min(Number(hash.group) || 0, state.view.length - 1)); renderRows(); }
  if (hash.selection) { selectionCommand(); }
  renderErrors();
  performance.mark('dedup-rendered');
  document.documentElement.setAttribute('data-rendered-ms', String(Math.round(performance.now())));
  document.documentElement.setAttribute('data-groups', String(state.view.length));
})();
