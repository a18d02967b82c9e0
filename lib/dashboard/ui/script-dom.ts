/**
 * Rendering helpers of the dashboard's script: elements, relative times, keyed table rows,
 * progress bars, SVG line charts and rates from the samples, built with DOM calls only. They run inside the script's
 * closure (see script.ts) and use its `$`, `now`, `meta`, `samples` and `SVG`.
 * (Kept free of backticks and dollar-braces: it lives in a template string.)
 */
export const DOM_HELPERS = String.raw`  function h(tag, props, ...children) {
    const node = document.createElement(tag);
    for (const [name, value] of Object.entries(props || {})) {
      if (value === undefined || value === null || value === false) continue;
      if (name === 'class') node.className = value;
      else if (name.startsWith('on')) node.addEventListener(name.slice(2), value);
      else node.setAttribute(name, value === true ? '' : String(value));
    }
    for (const child of children) {
      if (child === undefined || child === null || child === false) continue;
      node.append(child instanceof Node ? child : String(child));
    }
    return node;
  }

  function svg(tag, attrs) {
    const node = document.createElementNS(SVG, tag);
    for (const [name, value] of Object.entries(attrs || {})) node.setAttribute(name, String(value));
    return node;
  }

  function span(ms) {
    const s = Math.round(Math.abs(ms) / 1000);
    if (s < 60) return s + 's';
    const m = Math.floor(s / 60);
    if (m < 60) return m + 'm ' + (s % 60) + 's';
    const hours = Math.floor(m / 60);
    if (hours < 48) return hours + 'h ' + (m % 60) + 'm';
    return Math.floor(hours / 24) + 'd ' + (hours % 24) + 'h';
  }

  function relative(node) {
    const at = Date.parse(node.dateTime);
    const d = now() - at;
    if (node.dataset.mode === 'until') node.textContent = d >= 0 ? 'due' : 'in ' + span(-d);
    else node.textContent = d < 1000 ? 'just now' : span(d) + ' ago';
  }

  function time(iso, mode) {
    if (!iso) return h('span', { title: 'not a valid date' }, '—');
    const node = h('time', { datetime: iso, title: new Date(iso).toLocaleString(), 'data-mode': mode || 'ago' });
    relative(node);
    return node;
  }

  function refreshTimes() {
    for (const node of document.querySelectorAll('time[data-mode]')) relative(node);
  }

  function mono(text) {
    return h('td', { class: 'mono' }, text);
  }

  function argsCell(text) {
    return h('td', { class: 'args mono', title: text || '' }, text === null ? '—' : text);
  }

  let toastTimer;
  function toast(message, error) {
    const node = $('#toast');
    node.textContent = message;
    node.className = error ? 'error' : '';
    node.hidden = false;
    clearTimeout(toastTimer);
    toastTimer = setTimeout(() => (node.hidden = true), 4000);
  }

  // Rows are kept by key while their data is unchanged, so buttons and bars stay put.
  function fill(table, items, keyOf, build) {
    const tbody = table.tBodies[0];
    const old = new Map(Array.from(tbody.rows, (row) => [row.dataset.key, row]));
    const rows = items.map((item) => {
      const key = keyOf(item);
      const signature = JSON.stringify(item);
      const previous = old.get(key);
      if (previous && previous.dataset.signature === signature) return previous;
      const row = build(item, previous);
      row.dataset.key = key;
      row.dataset.signature = signature;
      return row;
    });
    tbody.replaceChildren(...rows);
    const empty = table.nextElementSibling;
    if (empty && empty.classList.contains('empty')) empty.hidden = items.length > 0;
  }

  function bar(progress, previous) {
    const wrap = previous || h('div', { class: 'progress' }, h('div', { class: 'bar', role: 'progressbar' }, h('span')), h('div', { class: 'bar-label' }));
    const track = wrap.querySelector('.bar');
    const fillNode = track.firstChild;
    const label = wrap.querySelector('.bar-label');
    const total = progress.total > 0 ? progress.total : 100;
    if (progress.current === null) {
      track.classList.add('indeterminate');
      track.removeAttribute('aria-valuenow');
      label.textContent = progress.message || 'no progress reported';
    } else {
      const pct = Math.max(0, Math.min(100, (progress.current / total) * 100));
      track.classList.remove('indeterminate');
      track.setAttribute('aria-valuenow', String(progress.current));
      track.setAttribute('aria-valuemax', String(total));
      fillNode.style.width = pct.toFixed(1) + '%';
      label.textContent = progress.current + ' / ' + total + ' · ' + Math.round(pct) + '%' + (progress.message ? ' · ' + progress.message : '');
    }
    return wrap;
  }

  function niceMax(value) {
    if (value <= 0) return 1;
    const power = Math.pow(10, Math.floor(Math.log10(value)));
    for (const step of [1, 2, 2.5, 5, 10]) if (value <= step * power) return step * power;
    return 10 * power;
  }

  function label(value) {
    return value >= 100 || Number.isInteger(value) ? String(Math.round(value)) : value.toFixed(1);
  }

  function chart(container, series, note) {
    const W = Math.max(container.clientWidth, 240);
    const H = 140;
    const L = 36, R = 8, T = 8, B = 18;
    const t1 = now();
    const t0 = t1 - meta.history;
    let max = 0;
    for (const s of series) for (const point of s.points) max = Math.max(max, point[1]);
    max = niceMax(max);
    const x = (t) => L + ((t - t0) / meta.history) * (W - L - R);
    const y = (v) => T + (1 - v / max) * (H - T - B);
    const root = svg('svg', { viewBox: '0 0 ' + W + ' ' + H, role: 'img' });
    for (const v of [0, max / 2, max]) {
      root.append(svg('line', { class: 'axis', x1: L, x2: W - R, y1: y(v), y2: y(v) }));
      const text = svg('text', { x: L - 4, y: y(v) + 3, 'text-anchor': 'end' });
      text.textContent = label(v);
      root.append(text);
    }
    const left = svg('text', { x: L, y: H - 4 });
    left.textContent = '-' + span(meta.history).replace(/ 0s$/, '');
    const right = svg('text', { x: W - R, y: H - 4, 'text-anchor': 'end' });
    right.textContent = 'now';
    root.append(left, right);
    for (const s of series) {
      const points = s.points.filter((p) => p[0] >= t0);
      if (points.length === 0) continue;
      const coords = points.map((p) => x(p[0]).toFixed(1) + ',' + y(p[1]).toFixed(1));
      if (s.area) {
        const base = y(0).toFixed(1);
        root.append(svg('polygon', { class: 'area ' + s.cls, points: x(points[0][0]).toFixed(1) + ',' + base + ' ' + coords.join(' ') + ' ' + x(points[points.length - 1][0]).toFixed(1) + ',' + base }));
      }
      root.append(svg('polyline', { class: s.cls, points: coords.join(' '), 'data-series': s.cls }));
    }
    if (note) {
      const text = svg('text', { x: (L + W - R) / 2, y: H / 2, 'text-anchor': 'middle' });
      text.textContent = note;
      root.append(text);
    }
    container.replaceChildren(root);
  }

  // Completions per minute in buckets of about a sixtieth of the history.
  function rates(key) {
    const bucket = Math.max(meta.sampleInterval, Math.round(meta.history / 60));
    const sums = new Map();
    for (const s of samples) {
      if (s[key] === null) continue;
      const b = Math.floor(s.at / bucket) * bucket;
      sums.set(b, (sums.get(b) || 0) + s[key]);
    }
    return Array.from(sums, (entry) => [entry[0] + bucket / 2, (entry[1] * 60000) / bucket]).sort((a, b) => a[0] - b[0]);
  }

  function recent(key, ms) {
    const since = now() - ms;
    let sum = 0;
    let covered = 0;
    for (const s of samples) {
      if (s.at <= since || s[key] === null) continue;
      sum += s[key];
      covered += meta.sampleInterval;
    }
    return covered ? { sum, covered } : null;
  }

`;
