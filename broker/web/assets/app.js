// sup web: the page. Agent text only ever becomes text nodes
// (textContent); nothing here parses HTML (specs/web.md, "Security").
'use strict';
(function () {
  const meta = (n) => document.querySelector('meta[name="' + n + '"]').content;
  const csrf = meta('sup-csrf');
  const canJump = meta('sup-jump') === '1';
  const rows = new Map(); // id → row as the server sent it
  const cards = new Map(); // id → {li, sig}
  const openScreens = new Set(); // ids whose screen preview is open
  const drafts = new Map(); // id → trigger text being typed
  const notes = new Map(); // id → the last action's outcome {text, error}, kept across re-renders
  let skew = 0; // server clock − ours, ms
  let paused = false;
  let held = []; // events received while paused
  let rendered = false;
  let dirty = false;
  const $ = (id) => document.getElementById(id);

  // visible shows control and bidi characters as ⟨U+XXXX⟩: a U+202E in
  // a command must not reverse what the operator reads before approving.
  const hidden = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;
  function visible(s) {
    return String(s == null ? '' : s).replace(hidden, (c) => '⟨U+' + c.charCodeAt(0).toString(16).toUpperCase().padStart(4, '0') + '⟩');
  }
  function el(tag, cls, text) {
    const e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined) e.textContent = visible(text);
    return e;
  }
  function now() { return Date.now() + skew; }
  function age(ms) {
    const s = Math.max(0, Math.floor(ms / 1000));
    if (s < 60) return s + 's';
    const m = Math.floor(s / 60);
    if (m < 60) return m + 'm ' + (s % 60) + 's';
    const h = Math.floor(m / 60);
    return h + 'h ' + (m % 60) + 'm';
  }
  function status(text, error) {
    const p = $('status');
    p.textContent = visible(text);
    p.className = error ? 'error' : '';
  }

  async function act(path, body, card) {
    let msg = card.querySelector('.msg');
    msg.textContent = '…';
    msg.className = 'msg';
    let rep;
    try {
      const res = await fetch(path, {
        method: 'POST', credentials: 'same-origin', cache: 'no-store',
        headers: { 'Content-Type': 'application/json', 'X-Sup-CSRF': csrf },
        body: JSON.stringify(body),
      });
      rep = await res.json();
    } catch (e) {
      rep = { ok: false, code: 'NETWORK', message: String(e) };
    }
    const text = rep.ok ? rep.message : (rep.code ? rep.code + ': ' : '') + rep.message;
    notes.set(body.id, { text: text, error: !rep.ok });
    const c = cards.get(body.id); // the row may have been re-rendered meanwhile
    if (c) msg = c.li.querySelector('.msg');
    msg.textContent = visible(text);
    msg.className = rep.ok ? 'msg' : 'msg error';
    status(text, !rep.ok);
    return rep;
  }

  function stateText(r) {
    let s = r.lifecycle === 'running' ? r.activity : r.lifecycle;
    if (r.reason && r.reason !== s) s += ' · ' + r.reason;
    if (r.operator_busy) s += ' · you are typing';
    if (r.health && r.health !== 'healthy') s += ' · ' + r.health;
    return s;
  }

  // card builds a row's element from scratch; every string from the
  // server goes through el (textContent).
  function card(r) {
    const li = el('li', 'row');
    li.dataset.id = r.id;
    li.dataset.name = r.name;
    const asks = r.activity === 'needs_confirmation' && r.prompt_id;
    if (asks) li.classList.add('ask');
    else if (r.waiting_since) li.classList.add('waiting');
    const head = el('div', 'head');
    head.append(el('span', 'name', r.name));
    if (r.host) head.append(el('span', 'tag', '@' + r.host));
    if (r.profile) head.append(el('span', 'tag', r.profile));
    head.append(el('span', asks ? 'state ask' : 'state', stateText(r)));
    if (r.waiting_since) {
      const a = el('span', 'age');
      a.dataset.since = String(r.waiting_since);
      a.textContent = 'waits ' + age(now() - r.waiting_since);
      head.append(a);
    }
    li.append(head);
    if (r.summary) li.append(el('div', 'summary', r.summary));
    if (asks && r.prompt_detail && r.prompt_detail !== r.summary) li.append(el('pre', 'detail', r.prompt_detail));
    const actions = el('div', 'actions');
    if (asks) {
      const choice = (c, label) => {
        const b = el('button', 'choice', label);
        b.type = 'button';
        b.dataset.choice = c;
        b.addEventListener('click', () => act('/api/answer', { id: r.id, choice: c, expect: r.prompt_id }, li));
        actions.append(b);
      };
      for (const c of r.prompt_choices || []) choice(c, c);
      for (const o of r.prompt_options || []) choice(o.choice, o.choice + '. ' + o.label);
    }
    if (r.waiting_since) {
      const b = el('button', 'skip', 'Skip');
      b.type = 'button';
      b.addEventListener('click', () => act('/api/skip', { id: r.id }, li));
      actions.append(b);
    }
    if (canJump) {
      const b = el('button', 'jump', 'Jump');
      b.type = 'button';
      b.addEventListener('click', () => act('/api/jump', { id: r.id }, li));
      actions.append(b);
    }
    li.append(actions);
    const form = el('div', 'trigger');
    const input = el('input');
    input.type = 'text';
    input.placeholder = 'Send a prompt to ' + visible(r.name);
    input.value = drafts.get(r.id) || '';
    input.addEventListener('input', () => drafts.set(r.id, input.value));
    const send = el('button', 'send', 'Send');
    send.type = 'button';
    const go = async () => {
      if (!input.value.trim()) return;
      const rep = await act('/api/trigger', { id: r.id, prompt: input.value }, li);
      if (rep.ok) { drafts.delete(r.id); input.value = ''; }
    };
    send.addEventListener('click', go);
    input.addEventListener('keydown', (e) => { if (e.key === 'Enter') go(); });
    form.append(input, send);
    li.append(form);
    if (r.screen_seq) {
      // The preview's text is fetched only while it is open: the stream
      // carries its sequence number, not 200 screens.
      const d = el('details', 'screen');
      const pre = el('pre', 'screen', '…');
      const load = async () => {
        try {
          const res = await fetch('/api/screen?id=' + encodeURIComponent(r.id), { credentials: 'same-origin', cache: 'no-store' });
          const s = await res.json();
          pre.textContent = visible(res.ok ? s.text : (s.code + ': ' + s.message));
          pre.dataset.seq = String(s.seq || 0);
        } catch (e) { pre.textContent = visible(String(e)); }
      };
      d.open = openScreens.has(r.id);
      if (d.open) load();
      li.reloadScreen = () => { if (d.open) load(); };
      d.addEventListener('toggle', () => {
        if (d.open) { openScreens.add(r.id); load(); } else openScreens.delete(r.id);
      });
      d.append(el('summary', '', 'screen'), pre);
      li.append(d);
    }
    const note = notes.get(r.id);
    li.append(el('div', note && note.error ? 'msg error' : 'msg', note ? note.text : ''));
    return li;
  }

  function rank(r, t) {
    if (!r.waiting_since) return 2;
    return r.skip_until > t ? 1 : 0;
  }
  function order(a, b, t) {
    const ra = rank(a, t), rb = rank(b, t);
    if (ra !== rb) return ra - rb;
    if (a.waiting_since !== b.waiting_since) return a.waiting_since - b.waiting_since;
    return a.name < b.name ? -1 : a.name > b.name ? 1 : (a.id < b.id ? -1 : 1);
  }

  function render() {
    dirty = false;
    const t = now();
    const all = Array.from(rows.values()).sort((a, b) => order(a, b, t));
    const queue = $('queue'), others = $('others');
    let nq = 0, no = 0;
    for (const r of all) {
      const sig = JSON.stringify(r);
      // base is the row but for which read of its screen this is: a
      // screen read again changes nothing else on the card.
      const base = JSON.stringify(Object.assign({}, r, { screen_seq: r.screen_seq ? 1 : 0 }));
      let c = cards.get(r.id);
      if (c && c.sig !== sig && c.base === base) {
        // Only the screen was read again: the card stays, so a click on
        // one of its buttons is not lost to a rebuilt row; an open
        // preview fetches the new text.
        c.sig = sig;
        if (c.li.reloadScreen) c.li.reloadScreen();
      } else if (!c || c.sig !== sig) {
        const li = card(r);
        const keep = c && c.li.contains(document.activeElement) ? document.activeElement : null;
        if (c) c.li.replaceWith(li);
        c = { li: li, sig: sig, base: base };
        cards.set(r.id, c);
        if (keep && keep.tagName === 'INPUT') { const i = li.querySelector('input'); i.focus(); }
      }
      const list = r.waiting_since ? queue : others;
      list.append(c.li); // moves it into place, in order
      if (r.waiting_since) nq++; else no++;
    }
    for (const [id, c] of cards) {
      if (!rows.has(id)) { c.li.remove(); cards.delete(id); }
    }
    $('queue-count').textContent = nq ? '(' + nq + ')' : '';
    $('others-count').textContent = no ? '(' + no + ')' : '';
    $('queue-empty').hidden = nq > 0;
    $('others-empty').hidden = no > 0;
    $('counts').textContent = rows.size + ' sessions';
    document.body.dataset.rows = String(rows.size);
    if (!rendered) {
      rendered = true;
      performance.mark('sup-first-render');
    }
  }
  function schedule() {
    if (!dirty) { dirty = true; requestAnimationFrame(render); }
  }

  function notify(r, before) {
    if (!('Notification' in window) || Notification.permission !== 'granted' || !document.hidden) return;
    if (r.activity === 'needs_confirmation' && r.prompt_id && (!before || before.prompt_id !== r.prompt_id)) {
      try { new Notification('sup: ' + visible(r.name) + ' asks', { body: visible(r.summary || '').slice(0, 200), tag: r.id }); } catch (e) { /* not allowed here */ }
    }
  }

  function apply(m) {
    skew = m.now ? m.now - Date.now() : skew;
    switch (m.type) {
      case 'snapshot':
        if (!rendered) performance.mark('sup-snapshot');
        rows.clear();
        for (const r of m.rows || []) rows.set(r.id, r);
        hosts(m.hosts, m.dir);
        break;
      case 'session':
        notify(m.row, rows.get(m.row.id));
        rows.set(m.row.id, m.row);
        break;
      case 'gone':
        rows.delete(m.id);
        break;
      case 'hosts':
        hosts(m.hosts);
        break;
    }
    schedule();
  }
  function hosts(h, dir) {
    const down = Object.entries(h || {}).filter(([, why]) => why).map(([n, why]) => n + ': ' + why);
    if (dir === 'missing') down.unshift('no supervisor runs on this host (no runtime dir)');
    $('hosts').textContent = visible(down.join(' · '));
  }

  function connect() {
    performance.mark('sup-connect');
    const es = new EventSource('/events');
    const conn = $('conn');
    es.onopen = () => { conn.textContent = 'live'; conn.className = 'conn live'; };
    es.onerror = () => {
      conn.className = 'conn';
      if (es.readyState === EventSource.CLOSED) {
        // Refused (401: sup web restarted, its cookie is new): retrying
        // cannot help.
        conn.textContent = 'signed out';
        status('signed out: sup web restarted or refused this page; open the URL it printed', true);
      } else conn.textContent = 'reconnecting…';
    };
    for (const type of ['snapshot', 'session', 'gone', 'hosts']) {
      es.addEventListener(type, (e) => {
        let m;
        try { m = JSON.parse(e.data); } catch (err) { return; }
        if (paused && type !== 'snapshot') { held.push(m); return; }
        if (paused) { held = [m]; return; }
        apply(m);
      });
    }
  }

  $('pause').addEventListener('click', () => {
    paused = !paused;
    $('pause').setAttribute('aria-pressed', String(paused));
    $('pause').textContent = paused ? 'Resume' : 'Pause';
    if (!paused) { const h = held; held = []; h.forEach(apply); }
  });
  const nb = $('notify');
  if (!('Notification' in window)) nb.hidden = true;
  nb.addEventListener('click', async () => {
    const p = await Notification.requestPermission();
    status(p === 'granted' ? 'notifications on: a new prompt raises one while this page is in the background' : 'notifications: ' + p, p !== 'granted');
  });
  // Ages tick here, in the page; the server sends only changes.
  setInterval(() => {
    const t = now();
    for (const a of document.querySelectorAll('.age')) a.textContent = 'waits ' + age(t - Number(a.dataset.since));
  }, 1000);
  connect();
})();
