'use strict';
// acplint's HTML report. The page holds the data in script elements of
// type application/json (see htmlreport/report.go for the records); this
// script reads them, joins findings to their messages and draws the rows
// in view. Every string from the data is put into the page as text
// (textContent, createTextNode), never as markup; links are made only to
// rows of this page and to https pages of the rule catalog.
(function () {
  const t0 = performance.now();
  const ROW_H = 22, OVERSCAN = 12, MAX_PX = 8e6, MAX_PRETTY = 2e6;
  const SEVS = ['error', 'warning', 'info'];
  const CHUNKS = new Set(['agent_message_chunk', 'agent_thought_chunk', 'user_message_chunk']);
  const $ = (id) => document.getElementById(id);
  const el = (tag, cls, text) => {
    const e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined && text !== '') e.textContent = text;
    return e;
  };

  // ---- reading the data ----
  const files = [], rows = [], finds = [], turns = [];
  let file = null;
  function take(r) {
    switch (r[0]) {
      case 'F':
        file = { i: files.length, name: r[1], rows: [], finds: [], sessions: new Map(), turns: [], end: -1 };
        files.push(file);
        break;
      case 'M': {
        const row = { i: rows.length, f: file.i, line: r[1], dir: r[2], kind: r[3], method: r[4], id: r[5],
          sess: r[6], upd: r[7], time: r[8], raw: r[9], elem: -1, finds: [], pair: -1, turn: -1, tms: NaN };
        if (row.raw === 0) {
          const prev = rows[rows.length - 1];
          if (prev.elem < 0) prev.elem = 0;
          row.raw = prev.raw;
          row.elem = prev.elem + 1;
        }
        rows.push(row);
        file.rows.push(row.i);
        break;
      }
      case 'R': {
        const f = { i: finds.length, f: file.i, sev: r[1], rule: r[2], blame: r[3], line: r[4], ptr: r[5],
          msg: r[6], spec: r[7], rel: r[8], row: -1 };
        finds.push(f);
        file.finds.push(f.i);
        break;
      }
      case 'E': {
        file.format = r[1]; file.lines = r[2]; file.messages = r[3]; file.error = r[4];
        const row = { i: rows.length, f: file.i, line: 0, dir: '?', kind: 'end', method: '', id: '', sess: '',
          upd: '', time: '', raw: '', elem: -1, finds: [], pair: -1, turn: -1, tms: NaN };
        rows.push(row);
        file.rows.push(row.i);
        file.end = row.i;
        break;
      }
    }
  }
  for (const block of document.querySelectorAll('script.acp-data')) {
    for (const r of JSON.parse(block.textContent)) take(r);
    block.remove(); // the browser need not keep the text twice
  }
  const metaEl = $('acp-meta');
  const meta = metaEl ? JSON.parse(metaEl.textContent) : { rules: {} };

  // ---- joining ----
  // Findings to rows: the row of the finding's line (the message a batch
  // pointer names), the nearest row before it for a line that holds none,
  // the end row for the transcript as a whole.
  for (const fl of files) {
    const lineRows = fl.rows.filter((i) => rows[i].kind !== 'end');
    for (const fi of fl.finds) {
      const f = finds[fi];
      let target = fl.end;
      if (f.line > 0 && lineRows.length) {
        let lo = 0, hi = lineRows.length - 1, at = 0;
        while (lo <= hi) {
          const mid = (lo + hi) >> 1;
          if (rows[lineRows[mid]].line <= f.line) { at = mid; lo = mid + 1; } else hi = mid - 1;
        }
        let first = at;
        while (first > 0 && rows[lineRows[first - 1]].line === rows[lineRows[at]].line) first--;
        target = lineRows[first];
        const m = /^\/(\d+)(\/|$)/.exec(f.ptr);
        if (m && rows[target].elem >= 0 && first + Number(m[1]) <= at) target = lineRows[first + Number(m[1])];
      }
      if (target < 0) continue;
      f.row = target;
      rows[target].finds.push(fi);
    }
  }
  // Requests to responses, sessions to responses, rows to prompt turns.
  let turnCount = 0;
  for (const fl of files) {
    const pending = new Map(), open = new Map();
    for (const ri of fl.rows) {
      const row = rows[ri];
      if (row.kind === 'req' && row.id !== '') pending.set(row.dir + '|' + row.id, ri);
      if ((row.kind === 'res' || row.kind === 'err') && row.id !== '') {
        const keys = row.dir === 'c' ? ['a'] : row.dir === 'a' ? ['c'] : ['c', 'a', '?'];
        for (const d of keys) {
          const k = d + '|' + row.id;
          if (pending.has(k)) {
            row.pair = pending.get(k);
            rows[row.pair].pair = ri;
            pending.delete(k);
            break;
          }
        }
        if (row.pair >= 0) {
          const req = rows[row.pair];
          if (!row.sess) row.sess = req.sess;
          if (!req.sess && row.sess && req.turn < 0) req.sess = row.sess;
          if (!row.method) row.method = req.method;
        }
      }
      if (row.time) {
        const s = String(row.time);
        const n = /^-?\d+(\.\d+)?$/.test(s) ? Number(s) : Date.parse(s);
        row.tms = n > 1e14 ? n / 1e6 : n > 1e11 ? n : n > 1e8 ? n * 1000 : n;
      }
      if (row.sess) {
        let s = fl.sessions.get(row.sess);
        if (!s) {
          s = { f: fl.i, id: row.sess, first: ri, rows: 0, finds: 0, turns: 0, key: fl.i + '|' + row.sess };
          fl.sessions.set(row.sess, s);
        }
      }
      if (row.kind === 'req' && row.method === 'session/prompt' && row.sess) {
        const t = { i: turnCount++, f: fl.i, sess: row.sess, start: ri, end: -1, n: fl.turns.length + 1, rows: 0, finds: 0 };
        fl.turns.push(t);
        turns.push(t);
        open.set(row.sess, t);
        fl.sessions.get(row.sess).turns++;
        row.turn = t.i;
      } else if (row.sess && open.has(row.sess)) {
        const t = open.get(row.sess);
        row.turn = t.i;
        if (row.pair === t.start) { t.end = ri; open.delete(row.sess); }
      }
    }
  }

  // ---- filters and the display list ----
  const state = { sev: { error: true, warning: true, info: true }, rule: '', file: '', session: '', only: false,
    search: null, collapsed: new Set(), sel: -1, selRow: -1, selFind: -1, hover: -1 };
  let items = [];
  let rowItem = new Int32Array(rows.length);

  const none = [];
  const visFinds = (row) => row.finds.length === 0 ? none : row.finds.filter((fi) => state.sev[finds[fi].sev] && (!state.rule || finds[fi].rule === state.rule));
  function passes(row) {
    if (state.file !== '' && String(row.f) !== state.file) return false;
    if (state.session && (row.f + '|' + row.sess) !== state.session) return false;
    if ((state.only || state.rule) && visFinds(row).length === 0) return false;
    if (state.search) {
      if (!(state.search.test(row.raw) || state.search.test(row.method))) return false;
    }
    return true;
  }
  const sessKey = (row) => row.f + '|' + row.sess;
  function rebuild() {
    items = [];
    rowItem = new Int32Array(rows.length).fill(-1);
    const pass = new Uint8Array(rows.length);
    const sessVisible = new Map(), turnVisible = new Map(), sessFinds = new Map(), turnFinds = new Map();
    for (const row of rows) {
      if (!passes(row)) continue;
      pass[row.i] = 1;
      const n = visFinds(row).length;
      if (row.sess) { const k = sessKey(row); sessVisible.set(k, (sessVisible.get(k) || 0) + 1); sessFinds.set(k, (sessFinds.get(k) || 0) + n); }
      if (row.turn >= 0) { turnVisible.set(row.turn, (turnVisible.get(row.turn) || 0) + 1); turnFinds.set(row.turn, (turnFinds.get(row.turn) || 0) + n); }
    }
    const headed = new Set();
    let lastFile = -1;
    for (const row of rows) {
      if (!pass[row.i]) continue;
      if (files.length > 1 && row.f !== lastFile) {
        items.push({ type: 'file', f: row.f });
        lastFile = row.f;
      }
      let hidden = false;
      if (row.sess) {
        const k = sessKey(row);
        if (!headed.has('s' + k)) {
          headed.add('s' + k);
          items.push({ type: 'sess', key: k, f: row.f, sess: row.sess, rows: sessVisible.get(k), finds: sessFinds.get(k) });
        }
        hidden = state.collapsed.has('s' + k);
        if (row.turn >= 0 && !headed.has('t' + row.turn)) {
          headed.add('t' + row.turn);
          if (!hidden) items.push({ type: 'turn', t: row.turn, rows: turnVisible.get(row.turn), finds: turnFinds.get(row.turn) });
        }
        hidden = hidden || (row.turn >= 0 && state.collapsed.has('t' + row.turn));
      }
      if (hidden) continue;
      const last = items[items.length - 1];
      if (row.kind === 'note' && CHUNKS.has(row.upd) && last && (last.type === 'row' || last.type === 'fold')) {
        const prev = rows[last.type === 'row' ? last.r : last.rs[last.rs.length - 1]];
        if (prev.kind === 'note' && prev.upd === row.upd && prev.sess === row.sess && prev.dir === row.dir && prev.f === row.f && prev.turn === row.turn) {
          if (last.type === 'row') { last.type = 'fold'; last.rs = [last.r]; delete last.r; }
          last.rs.push(row.i);
          rowItem[row.i] = items.length - 1;
          continue;
        }
      }
      rowItem[row.i] = items.length;
      items.push({ type: 'row', r: row.i });
    }
    const shown = rows.reduce((n, r, i) => n + (pass[i] && r.kind !== 'end' ? 1 : 0), 0);
    const total = rows.length - files.length;
    $('status').textContent = 'showing ' + shown.toLocaleString('en') + ' of ' + total.toLocaleString('en') + ' messages';
    $('status').dataset.shown = String(shown);
    if (state.sel >= items.length) state.sel = -1;
    draw();
  }

  // ---- summaries of a message, read lazily ----
  const parsed = new Map();
  function valueOf(row) {
    if (parsed.has(row.i)) return parsed.get(row.i);
    let v = null;
    if (typeof row.raw === 'string' && row.raw.length < MAX_PRETTY && row.kind !== 'gap') {
      try { v = JSON.parse(row.raw); if (row.elem >= 0 && Array.isArray(v)) v = v[row.elem]; } catch (e) { v = null; }
    }
    if (parsed.size > 4000) parsed.clear();
    parsed.set(row.i, v);
    return v;
  }
  const short = (s, n) => { s = String(s == null ? '' : s).replace(/\s+/g, ' ').trim(); return s.length > n ? s.slice(0, n - 1) + '…' : s; };
  function textOf(content) {
    if (!content || typeof content !== 'object') return '';
    if (typeof content.text === 'string') return content.text;
    if (content.type === 'resource_link') return '[' + (content.name || content.uri || 'link') + ']';
    if (content.type) return '[' + content.type + ']';
    return '';
  }
  function chunkText(row) {
    const v = valueOf(row);
    const u = v && v.params && v.params.update;
    return u ? textOf(u.content) : '';
  }
  function detailOf(row) {
    const v = valueOf(row);
    if (!v || typeof v !== 'object') return '';
    const p = v.params && typeof v.params === 'object' ? v.params : {};
    const res = v.result && typeof v.result === 'object' ? v.result : {};
    switch (row.kind) {
      case 'req': case 'note':
        switch (row.method) {
          case 'session/prompt': return Array.isArray(p.prompt) ? p.prompt.map(textOf).join(' ') : '';
          case 'session/new': return p.cwd || '';
          case 'session/update': {
            const u = p.update || {};
            if (CHUNKS.has(u.sessionUpdate)) return textOf(u.content);
            if (u.sessionUpdate === 'tool_call' || u.sessionUpdate === 'tool_call_update') return [u.title, u.status].filter(Boolean).join(' · ');
            if (u.sessionUpdate === 'plan' && Array.isArray(u.entries)) return u.entries.length + ' entries';
            return '';
          }
          case 'session/request_permission': return p.toolCall && p.toolCall.title || '';
          case 'terminal/create': return [p.command].concat(Array.isArray(p.args) ? p.args : []).join(' ');
          default: return p.path || '';
        }
      case 'res':
        if (res.stopReason) return res.stopReason;
        if (res.sessionId) return res.sessionId;
        if (res.outcome && res.outcome.outcome) return res.outcome.outcome + (res.outcome.optionId ? ' ' + res.outcome.optionId : '');
        return '';
      case 'err': {
        const e = v.error || {};
        return [e.code, e.message].filter((x) => x !== undefined).join(' ');
      }
    }
    return '';
  }
  function labelOf(row) {
    const id = row.id !== '' ? ' #' + row.id : '';
    switch (row.kind) {
      case 'req': return row.method + id + '  ' + short(detailOf(row), 160);
      case 'note': return (row.method === 'session/update' ? (row.upd || updateTag(row) || 'session/update') : row.method) + '  ' + short(detailOf(row), 160);
      case 'res': return '↩ ' + (row.method || 'result') + id + '  ' + short(detailOf(row), 120);
      case 'err': return '↩ error' + id + (row.method ? ' (' + row.method + ')' : '') + '  ' + short(detailOf(row), 120);
      case 'inv': return 'not a JSON-RPC message: ' + short(row.raw, 160);
      case 'text': return 'text: ' + short(row.raw, 160);
      case 'bad': return 'not in the format: ' + short(row.raw, 160);
      case 'gap': return 'frames lost: ' + short(row.raw, 160);
      case 'end': {
        const fl = files[row.f];
        return 'end of ' + fl.name + ' · ' + fl.lines + ' lines, ' + fl.messages + ' messages' + (fl.error ? ' · stopped: ' + fl.error : '');
      }
    }
    return row.kind;
  }
  function updateTag(row) {
    const v = valueOf(row);
    return v && v.params && v.params.update && typeof v.params.update.sessionUpdate === 'string' ? v.params.update.sessionUpdate : '';
  }
  const dirLabel = { c: 'client → agent', a: 'agent → client', '?': 'sender unknown' };
  function clock(row) {
    if (!row.time) return '';
    const s = String(row.time);
    const m = /T(\d\d:\d\d:\d\d(\.\d{1,3})?)/.exec(s);
    return m ? m[1] : s;
  }
  function gapBefore(k) {
    const it = items[k];
    const r = it.type === 'row' ? rows[it.r] : it.type === 'fold' ? rows[it.rs[0]] : null;
    if (!r || !(r.tms >= 0)) return '';
    for (let j = k - 1; j >= 0 && j > k - 50; j--) {
      const p = items[j];
      const q = p.type === 'row' ? rows[p.r] : p.type === 'fold' ? rows[p.rs[p.rs.length - 1]] : null;
      if (q && q.tms >= 0) {
        const d = r.tms - q.tms;
        return d >= 1000 ? '+' + (d >= 60000 ? (d / 60000).toFixed(1) + 'm' : (d / 1000).toFixed(1) + 's') : '';
      }
    }
    return '';
  }

  // ---- drawing the rows in view ----
  const scroller = $('scroller'), spacer = $('spacer');
  let drawQueued = false;
  function geometry() {
    const total = items.length * ROW_H;
    const height = Math.min(total, MAX_PX);
    const view = scroller.clientHeight;
    // Past MAX_PX (browsers cap an element's height) the scroll position
    // maps onto the rows in proportion.
    const ratio = height > view && total > height ? (total - view) / (height - view) : 1;
    return { height, ratio };
  }
  function draw() {
    drawQueued = false;
    const g = geometry();
    spacer.style.height = g.height + 'px';
    const top = scroller.scrollTop * g.ratio;
    const from = Math.max(0, Math.floor(top / ROW_H) - OVERSCAN);
    const to = Math.min(items.length, Math.ceil((top + scroller.clientHeight) / ROW_H) + OVERSCAN);
    const out = [];
    for (let k = from; k < to; k++) {
      const e = itemEl(k);
      e.style.top = (scroller.scrollTop + k * ROW_H - top) + 'px';
      out.push(e);
    }
    spacer.replaceChildren(...out);
  }
  function queueDraw() {
    if (!drawQueued) { drawQueued = true; requestAnimationFrame(draw); }
  }
  function worst(fis) {
    for (const s of SEVS) if (fis.some((fi) => finds[fi].sev === s)) return s;
    return '';
  }
  function badges(span, fis) {
    // Two fit; the rest are counted (the detail pane lists them all).
    const shown = fis.length > 2 ? 1 : 2;
    for (const fi of fis.slice(0, shown)) {
      const b = el('span', 'badge sev-' + finds[fi].sev, finds[fi].rule);
      b.dataset.rule = finds[fi].rule;
      b.title = finds[fi].msg;
      span.appendChild(b);
    }
    if (fis.length > shown) span.appendChild(el('span', 'more', '+' + (fis.length - shown)));
  }
  function lanes(e, dir, label) {
    const c = el('span', 'c'), a = el('span', 'a'), arrow = el('span', 'arrow');
    const lane = dir === 'a' ? a : c;
    lane.textContent = label;
    lane.title = label;
    arrow.textContent = dir === 'a' ? '◀──' : dir === 'c' ? '──▶' : '?';
    e.append(c, arrow, a);
  }
  function lineLink(row) {
    const ln = el('span', 'ln');
    if (row.line > 0) {
      const a = el('a', '', String(row.line));
      a.href = '#' + anchor(row);
      ln.appendChild(a);
    }
    return ln;
  }
  function itemEl(k) {
    const it = items[k];
    const e = el('div', 'row');
    e.dataset.k = String(k);
    if (k === state.sel) e.classList.add('sel');
    if (it.type === 'row' || it.type === 'fold') {
      const members = it.type === 'row' ? [it.r] : it.rs;
      const row = rows[members[0]];
      const fis = [].concat(...members.map((r) => visFinds(rows[r])));
      e.classList.add('dir-' + (row.dir === '?' ? 'u' : row.dir), 'kind-' + row.kind);
      if (it.type === 'fold') e.classList.add('fold');
      const w = worst(fis);
      if (w) e.classList.add('worst-' + w);
      e.dataset.r = String(row.i);
      e.dataset.line = String(row.line);
      e.dataset.file = String(row.f);
      if (row.sess) e.dataset.session = row.sess;
      if (state.hover >= 0 && members.includes(state.hover)) e.classList.add('pair');
      const t = el('span', 't', clock(row));
      const gap = gapBefore(k);
      if (gap) t.appendChild(el('span', 'gap', gap));
      t.title = row.time ? String(row.time) : '';
      e.append(lineLink(row), t);
      let label;
      if (it.type === 'fold') {
        if (!it.label) {
          let s = '';
          for (const r of members) { s += chunkText(rows[r]); if (s.length > 400) break; }
          it.label = row.upd + ' ×' + members.length + '  ' + short(s, 300);
        }
        label = it.label;
        e.dataset.lines = members.map((r) => rows[r].line).join(' ');
      } else label = labelOf(row);
      lanes(e, row.kind === 'end' ? '?' : row.dir, label);
      if (row.kind === 'end') e.querySelector('.arrow').textContent = '';
      const fx = el('span', 'fx');
      badges(fx, fis);
      e.appendChild(fx);
      if (row.pair >= 0) e.title = (row.kind === 'req' ? 'answered at line ' : 'answers line ') + rows[row.pair].line;
    } else {
      e.classList.add('group', it.type);
      const key = it.type === 'sess' ? 's' + it.key : it.type === 'turn' ? 't' + it.t : '';
      const s = el('span');
      if (key) s.appendChild(el('span', 'tw', state.collapsed.has(key) ? '▸' : '▾'));
      if (it.type === 'file') s.appendChild(document.createTextNode(files[it.f].name));
      else if (it.type === 'sess') s.appendChild(document.createTextNode('session ' + it.sess));
      else {
        const t = turns[it.t];
        const stop = t.end >= 0 ? detailOf(rows[t.end]) : 'no response';
        s.appendChild(document.createTextNode('turn ' + t.n + ' · ' + short(detailOf(rows[t.start]), 120) + ' → ' + (stop || '?')));
      }
      const n = (k, what) => k + ' ' + what + (k === 1 ? '' : 's');
      if (it.rows !== undefined) s.appendChild(el('span', 'count', n(it.rows, 'message') + (it.finds ? ', ' + n(it.finds, 'finding') : '')));
      e.appendChild(s);
      e.dataset.group = key;
    }
    return e;
  }
  scroller.addEventListener('scroll', queueDraw, { passive: true });
  window.addEventListener('resize', queueDraw);
  function scrollToItem(k) {
    const g = geometry();
    const y = k * ROW_H / g.ratio;
    const view = scroller.clientHeight;
    if (y < scroller.scrollTop || y + ROW_H > scroller.scrollTop + view) scroller.scrollTop = Math.max(0, y - view / 3);
    draw();
  }

  // ---- interaction ----
  spacer.addEventListener('click', (ev) => {
    const e = ev.target.closest('.row');
    if (!e) return;
    if (ev.target.closest('a')) return; // the permalink: hashchange selects
    const k = Number(e.dataset.k);
    const it = items[k];
    if (it.type === 'sess' || it.type === 'turn') {
      const key = e.dataset.group;
      if (state.collapsed.has(key)) state.collapsed.delete(key); else state.collapsed.add(key);
      rebuild();
      state.sel = items.findIndex((x) => (x.type === 'sess' && 's' + x.key === key) || (x.type === 'turn' && 't' + x.t === key));
      showItem(state.sel);
      return;
    }
    select(k, it.type === 'row' ? it.r : -1);
  });
  spacer.addEventListener('mouseover', (ev) => {
    const e = ev.target.closest('.row');
    const r = e && e.dataset.r !== undefined ? rows[Number(e.dataset.r)] : null;
    const h = r && r.pair >= 0 ? r.pair : -1;
    if (h !== state.hover) { state.hover = h; queueDraw(); }
  });
  spacer.addEventListener('mouseleave', () => { if (state.hover >= 0) { state.hover = -1; queueDraw(); } });

  function select(k, r) {
    state.sel = k;
    state.selRow = r;
    draw();
    showItem(k, r);
  }
  function anchor(row) { return (row.f > 0 ? 'F' + (row.f + 1) + '-' : '') + (row.kind === 'end' ? 'end' : 'L' + row.line); }
  // goRow shows row r: it lifts whatever hides it (a filter, a collapsed
  // group), scrolls to it and selects it.
  function goRow(r, fi) {
    const row = rows[r];
    if (rowItem[r] < 0) {
      if (!passes(row)) {
        state.search = null; $('search').value = '';
        state.only = false; $('only-findings').checked = false;
        state.session = ''; $('session').value = '';
        state.file = ''; $('file').value = '';
        if (fi === undefined || !visFinds(row).includes(fi)) { state.rule = ''; $('rule').value = ''; }
      }
      if (row.sess) state.collapsed.delete('s' + sessKey(row));
      if (row.turn >= 0) state.collapsed.delete('t' + row.turn);
      rebuild();
    }
    const k = rowItem[r];
    if (k < 0) return;
    state.selFind = fi === undefined ? -1 : fi;
    scrollToItem(k);
    select(k, r);
  }
  function rowForLine(f, line) {
    const fl = files[f];
    if (!fl) return -1;
    let best = -1;
    for (const i of fl.rows) {
      if (rows[i].kind === 'end') continue;
      if (rows[i].line === line) return i;
      if (rows[i].line < line) best = i;
    }
    return best;
  }
  function fromHash() {
    const m = /^#(?:F(\d+)-)?(?:L(\d+)|end)$/.exec(location.hash);
    if (!m) return false;
    const f = m[1] ? Number(m[1]) - 1 : 0;
    const r = m[2] ? rowForLine(f, Number(m[2])) : files[f] ? files[f].end : -1;
    if (r >= 0) goRow(r);
    return r >= 0;
  }
  window.addEventListener('hashchange', fromHash);

  function findingStep(dir) {
    const list = [];
    for (const row of rows) {
      if (state.file !== '' && String(row.f) !== state.file) continue;
      if (state.session && sessKey(row) !== state.session) continue;
      for (const fi of visFinds(row)) list.push(fi);
    }
    if (!list.length) return;
    let at = list.indexOf(state.selFind);
    if (at < 0) {
      // From the selected row: the first finding after (or before) it.
      const cur = state.selRow >= 0 ? state.selRow : dir > 0 ? -1 : rows.length;
      at = dir > 0 ? list.findIndex((fi) => finds[fi].row > cur) : list.length - 1 - [...list].reverse().findIndex((fi) => finds[fi].row < cur);
      if (at < 0 || at >= list.length) at = dir > 0 ? 0 : list.length - 1;
    } else at = (at + dir + list.length) % list.length;
    const fi = list[at];
    goRow(finds[fi].row, fi);
  }
  $('next').addEventListener('click', () => findingStep(1));
  $('prev').addEventListener('click', () => findingStep(-1));
  document.addEventListener('keydown', (ev) => {
    if (ev.target.closest && ev.target.closest('input,select,textarea')) {
      if (ev.key === 'Escape') ev.target.blur();
      return;
    }
    if (ev.ctrlKey || ev.metaKey || ev.altKey) return;
    if (ev.key === 'n' || ev.key === 'j') findingStep(1);
    else if (ev.key === 'p' || ev.key === 'k') findingStep(-1);
    else if (ev.key === '/') { ev.preventDefault(); $('search').focus(); }
    else if (ev.key === 'ArrowDown' || ev.key === 'ArrowUp') {
      ev.preventDefault();
      const k = Math.max(0, Math.min(items.length - 1, state.sel + (ev.key === 'ArrowDown' ? 1 : -1)));
      const it = items[k];
      if (!it) return;
      scrollToItem(k);
      select(k, it.type === 'row' ? it.r : -1);
    }
  });
  for (const s of SEVS) $('sev-' + s).addEventListener('change', (ev) => { state.sev[s] = ev.target.checked; rebuild(); });
  $('rule').addEventListener('change', (ev) => { state.rule = ev.target.value; rebuild(); });
  $('session').addEventListener('change', (ev) => { state.session = ev.target.value; rebuild(); });
  $('file').addEventListener('change', (ev) => { state.file = ev.target.value; rebuild(); });
  $('only-findings').addEventListener('change', (ev) => { state.only = ev.target.checked; rebuild(); });
  let searchTimer = 0;
  $('search').addEventListener('input', (ev) => {
    clearTimeout(searchTimer);
    searchTimer = setTimeout(() => {
      const q = ev.target.value;
      state.search = q ? new RegExp(q.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'), 'i') : null;
      rebuild();
    }, 200);
  });
  $('collapse').addEventListener('click', () => {
    for (const fl of files) for (const s of fl.sessions.values()) state.collapsed.add('s' + s.key);
    rebuild();
  });
  $('expand').addEventListener('click', () => { state.collapsed.clear(); rebuild(); });

  // ---- the detail pane ----
  const detail = $('detail');
  function showItem(k, r) {
    const it = items[k];
    if (!it) return;
    if (it.type === 'row' || (it.type === 'fold' && r >= 0 && it.rs.includes(r))) return showRow(r >= 0 ? r : it.r);
    if (it.type === 'fold') return showFold(it);
    const out = [];
    if (it.type === 'sess') {
      out.push(el('h2', '', 'session ' + it.sess));
      out.push(el('p', 'meta', (it.rows || 0) + ' messages shown, ' + (it.finds || 0) + ' findings · click the header to fold or unfold it'));
    } else if (it.type === 'turn') {
      const t = turns[it.t];
      out.push(el('h2', '', 'turn ' + t.n + ' of session ' + t.sess));
      out.push(el('p', 'meta', 'prompt at line ' + rows[t.start].line + (t.end >= 0 ? ', answered at line ' + rows[t.end].line + ': ' + detailOf(rows[t.end]) : ', never answered')));
      out.push(el('div', 'joined', detailOf(rows[t.start])));
    } else if (it.type === 'file') {
      out.push(el('h2', '', files[it.f].name));
    }
    detail.replaceChildren(...out);
  }
  function rowButton(r, text) {
    const b = el('button', '', text);
    b.type = 'button';
    b.addEventListener('click', () => goRow(r));
    return b;
  }
  function findingEl(fi) {
    const f = finds[fi];
    const box = el('div', 'finding sev-' + f.sev);
    box.dataset.finding = String(fi);
    box.dataset.rule = f.rule;
    if (fi === state.selFind) box.classList.add('current');
    const h = el('div', 'fh');
    h.append(el('span', 'badge sev-' + f.sev, f.sev), document.createTextNode(f.rule + ' · blame: ' + f.blame + (f.ptr ? ' · at ' + f.ptr : '')));
    box.appendChild(h);
    box.appendChild(el('div', 'msg', f.msg));
    for (const [line, msg] of f.rel || []) {
      const p = el('div', 'rel');
      const r = rowForLine(f.f, line);
      if (r >= 0) p.appendChild(rowButton(r, 'line ' + line)); else p.appendChild(document.createTextNode('line ' + line + ' '));
      p.appendChild(document.createTextNode(msg));
      box.appendChild(p);
    }
    const rule = meta.rules && meta.rules[f.rule];
    const spec = f.spec || (rule && rule[2]) || '';
    if (/^https:\/\//.test(spec)) {
      const a = el('a', '', 'spec');
      a.href = spec;
      a.rel = 'noopener noreferrer';
      a.target = '_blank';
      const p = el('div');
      p.appendChild(a);
      box.appendChild(p);
    }
    if (rule) {
      const d = el('details');
      d.appendChild(el('summary', '', 'explain ' + f.rule + ': ' + rule[0]));
      d.appendChild(el('p', '', rule[1]));
      box.appendChild(d);
    }
    return box;
  }
  function showRow(r) {
    const row = rows[r];
    const fl = files[row.f];
    const out = [];
    const h = el('h2');
    {
      const a = el('a', '', row.kind === 'end' ? 'end of ' + fl.name : 'line ' + row.line);
      a.href = '#' + anchor(row);
      h.appendChild(a);
      if (files.length > 1 && row.kind !== 'end') h.appendChild(document.createTextNode(' of ' + fl.name));
    }
    out.push(h);
    const bits = [];
    if (row.kind !== 'end') bits.push(dirLabel[row.dir]);
    bits.push({ req: 'request', note: 'notification', res: 'result', err: 'error response', inv: 'invalid message', text: 'text', bad: 'not in the format', gap: 'gap', end: fl.lines + ' lines, ' + fl.messages + ' messages, format ' + fl.format }[row.kind] || row.kind);
    if (row.method) bits.push(row.method);
    if (row.upd) bits.push(row.upd);
    if (row.id !== '') bits.push('id ' + row.id);
    if (row.sess) bits.push('session ' + row.sess);
    if (row.turn >= 0) bits.push('turn ' + turns[row.turn].n);
    if (row.time) bits.push(String(row.time));
    if (row.elem >= 0) bits.push('batch element ' + row.elem);
    out.push(el('div', 'meta', bits.join(' · ')));
    if (row.kind === 'end' && fl.error) out.push(el('p', 'finding sev-error', 'reading stopped: ' + fl.error));
    if (row.pair >= 0) {
      const p = el('div', 'pairs');
      const other = rows[row.pair];
      p.append(document.createTextNode(row.kind === 'req' ? 'answered by ' : 'answers '), rowButton(row.pair, 'line ' + other.line), document.createTextNode(other.kind === 'err' ? 'an error' : other.kind === 'req' ? other.method : 'a result'));
      out.push(p);
    } else if (row.kind === 'req') out.push(el('div', 'pairs', 'never answered in this transcript'));
    for (const fi of row.finds) out.push(findingEl(fi));
    if (row.kind !== 'end') out.push(pretty(row));
    detail.replaceChildren(...out);
    const cur = detail.querySelector('.finding.current') || detail.querySelector('.hl');
    if (cur) cur.scrollIntoView({ block: 'nearest' });
  }
  function showFold(it) {
    const first = rows[it.rs[0]];
    const out = [el('h2', '', first.upd + ' × ' + it.rs.length), el('div', 'meta', dirLabel[first.dir] + ' · session ' + first.sess + ' · lines ' + first.line + '–' + rows[it.rs[it.rs.length - 1]].line)];
    let s = '';
    for (const r of it.rs) s += chunkText(rows[r]);
    out.push(el('div', 'joined', s));
    for (const r of it.rs) for (const fi of rows[r].finds) out.push(findingEl(fi));
    const m = el('div', 'members');
    m.appendChild(document.createTextNode('chunks: '));
    for (const r of it.rs.slice(0, 500)) m.appendChild(rowButton(r, String(rows[r].line)));
    out.push(m);
    detail.replaceChildren(...out);
  }

  // ---- pretty-printing with the findings' pointers marked ----
  // A small parser of its own, not JSON.parse: it keeps numbers as
  // written, duplicate members and member order, as acplint judged them.
  function parseJSON(s) {
    let i = 0;
    const ws = () => { while (i < s.length && (s[i] === ' ' || s[i] === '\t' || s[i] === '\n' || s[i] === '\r')) i++; };
    const fail = () => { throw new Error('not JSON at ' + i); };
    function str() {
      const st = i++;
      while (i < s.length && s[i] !== '"') i += s[i] === '\\' ? 2 : 1;
      if (i >= s.length) fail();
      i++;
      return s.slice(st, i);
    }
    function val(depth) {
      if (depth > 500) fail();
      ws();
      const c = s[i];
      if (c === '{') {
        i++; const m = []; ws();
        if (s[i] === '}') { i++; return { t: 'o', m }; }
        for (;;) {
          ws(); if (s[i] !== '"') fail();
          const kr = str(); let k; try { k = JSON.parse(kr); } catch (e) { k = kr; }
          ws(); if (s[i++] !== ':') fail();
          m.push([kr, k, val(depth + 1)]);
          ws();
          if (s[i] === ',') { i++; continue; }
          if (s[i] === '}') { i++; return { t: 'o', m }; }
          fail();
        }
      }
      if (c === '[') {
        i++; const a = []; ws();
        if (s[i] === ']') { i++; return { t: 'a', a }; }
        for (;;) {
          a.push(val(depth + 1)); ws();
          if (s[i] === ',') { i++; continue; }
          if (s[i] === ']') { i++; return { t: 'a', a }; }
          fail();
        }
      }
      if (c === '"') return { t: 's', raw: str() };
      const st = i;
      while (i < s.length && !',]} \t\n\r'.includes(s[i])) i++;
      if (i === st) fail();
      const raw = s.slice(st, i);
      return { t: /^[-0-9]/.test(raw) ? 'n' : 'l', raw };
    }
    ws();
    if (s.charCodeAt(0) === 0xfeff) i++;
    const v = val(0);
    ws();
    if (i !== s.length) fail();
    return v;
  }
  const esc = (k) => String(k).replace(/~/g, '~0').replace(/\//g, '~1');
  function pretty(row) {
    const pre = el('pre', 'json');
    const raw = typeof row.raw === 'string' ? row.raw : '';
    if (raw.length > MAX_PRETTY) {
      pre.textContent = raw.slice(0, MAX_PRETTY) + '\n… (' + raw.length.toLocaleString('en') + ' characters; the rest is not shown)';
      return pre;
    }
    let tree;
    try { tree = parseJSON(raw); } catch (e) { pre.textContent = raw; return pre; }
    // The node each finding points at, or the nearest one that exists (a
    // missing member marks its object).
    const have = new Set();
    (function walk(n, p) {
      have.add(p);
      if (n.t === 'o') for (const [, k, v] of n.m) walk(v, p + '/' + esc(k));
      if (n.t === 'a') n.a.forEach((v, j) => walk(v, p + '/' + j));
    })(tree, '');
    const marks = new Map();
    // The findings of every message on the line (a batch's are adjacent
    // rows): their pointers are into the whole line.
    const lineFinds = [];
    let first = row.i;
    while (first > 0 && rows[first - 1].f === row.f && rows[first - 1].line === row.line) first--;
    for (let i = first; i < rows.length && rows[i].f === row.f && rows[i].line === row.line; i++) lineFinds.push(...rows[i].finds);
    for (const fi of lineFinds) {
      let p = finds[fi].ptr || '';
      if (!p) continue;
      while (p && !have.has(p)) p = p.slice(0, p.lastIndexOf('/'));
      if (!marks.has(p) || SEVS.indexOf(finds[fi].sev) < SEVS.indexOf(marks.get(p))) marks.set(p, finds[fi].sev);
    }
    // A batch: the row's own element, unless a finding marks it already.
    if (row.elem >= 0 && !marks.has('/' + row.elem)) marks.set('/' + row.elem, 'elem');
    const pad = (d) => '  '.repeat(d);
    function emit(n, p, d, parent) {
      let into = parent;
      if (marks.has(p)) {
        into = el('span', 'hl sev-' + marks.get(p));
        into.dataset.pointer = p;
        parent.appendChild(into);
      }
      if (n.t === 'o' || n.t === 'a') {
        const open = n.t === 'o' ? '{' : '[', close = n.t === 'o' ? '}' : ']';
        const list = n.t === 'o' ? n.m : n.a;
        if (!list.length) { into.appendChild(document.createTextNode(open + close)); return; }
        into.appendChild(document.createTextNode(open + '\n'));
        list.forEach((x, j) => {
          into.appendChild(document.createTextNode(pad(d + 1)));
          let cp;
          if (n.t === 'o') {
            into.appendChild(el('span', 'k', x[0]));
            into.appendChild(document.createTextNode(': '));
            cp = p + '/' + esc(x[1]);
            emit(x[2], cp, d + 1, into);
          } else {
            cp = p + '/' + j;
            emit(x, cp, d + 1, into);
          }
          into.appendChild(document.createTextNode(j < list.length - 1 ? ',\n' : '\n'));
        });
        into.appendChild(document.createTextNode(pad(d) + close));
        return;
      }
      into.appendChild(el('span', n.t, n.raw));
    }
    emit(tree, '', 0, pre);
    return pre;
  }

  // ---- the summary ----
  function summary() {
    const out = [];
    const msgs = files.reduce((n, fl) => n + (fl.messages || 0), 0);
    const sessions = files.reduce((n, fl) => n + fl.sessions.size, 0);
    const bySev = { error: 0, warning: 0, info: 0 }, byRule = new Map(), byBlame = new Map();
    for (const f of finds) {
      bySev[f.sev] = (bySev[f.sev] || 0) + 1;
      byRule.set(f.rule, (byRule.get(f.rule) || 0) + 1);
      byBlame.set(f.blame, (byBlame.get(f.blame) || 0) + 1);
    }
    const n = (k, what) => k.toLocaleString('en') + ' ' + what + (k === 1 ? '' : 's');
    const facts = (files.length > 1 ? n(files.length, 'file') + ' · ' : '') + n(msgs, 'message') + ' · ' + n(sessions, 'session') + ' · ' + n(turns.length, 'turn');
    out.push(el('span', 'facts', facts));
    const sev = el('span', 'sevs');
    sev.appendChild(document.createTextNode(finds.length ? 'findings: ' : 'no findings'));
    for (const s of SEVS) if (bySev[s]) { const b = el('span', 'badge sev-' + s, bySev[s] + ' ' + s + (s === 'info' || bySev[s] === 1 ? '' : 's')); b.dataset.count = String(bySev[s]); sev.appendChild(b); }
    out.push(sev);
    if (byBlame.size) out.push(el('span', 'blame', 'blame: ' + [...byBlame].sort((a, b) => b[1] - a[1]).map(([k, n]) => k + ' ' + n).join(', ')));
    const rules = el('span', 'rules');
    for (const [id, n] of [...byRule].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))) {
      const c = el('button', 'chip', id + ' ×' + n);
      c.type = 'button';
      c.title = (meta.rules[id] && meta.rules[id][0]) || '';
      c.addEventListener('click', () => { state.rule = state.rule === id ? '' : id; $('rule').value = state.rule; rebuild(); });
      rules.appendChild(c);
    }
    out.push(rules);
    for (const fl of files) if (fl.error) out.push(el('span', 'ioerr', fl.name + ': reading stopped: ' + fl.error));
    $('summary').replaceChildren(...out);
    for (const id of [...byRule.keys()].sort()) {
      const o = el('option', '', id + ((meta.rules[id] && ' · ' + meta.rules[id][0]) || ''));
      o.value = id;
      $('rule').appendChild(o);
    }
    for (const fl of files) for (const s of fl.sessions.values()) {
      const o = el('option', '', (files.length > 1 ? fl.name + ': ' : '') + s.id);
      o.value = s.key;
      $('session').appendChild(o);
    }
    if (files.length > 1) {
      files.forEach((fl, i) => { const o = el('option', '', fl.name); o.value = String(i); $('file').appendChild(o); });
    } else $('file-filter').hidden = true;
  }

  summary();
  // Formats without times (raw NDJSON, Zed) get their column back.
  if (!rows.some((r) => r.time)) document.body.classList.add('no-times');
  rebuild();
  if (!fromHash() && finds.length === 0) detail.querySelector('.hint').textContent = 'No findings. Select a message to see it in full.';
  document.body.dataset.loadMs = String(Math.round(performance.now() - t0));
  document.body.dataset.ready = 'true';
})();
