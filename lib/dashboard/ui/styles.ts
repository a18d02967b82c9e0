/** The dashboard's stylesheet: light and dark, no web fonts, no images. */
export const DASHBOARD_STYLES = `
:root {
  --bg: #f6f7f9; --panel: #fff; --text: #1d2330; --muted: #6b7385; --line: #e3e6ec;
  --accent: #3b6cf6; --ok: #1f9d63; --bad: #d64545; --warn: #c98a12; --sched: #8a63d2;
  color-scheme: light dark;
}
@media (prefers-color-scheme: dark) {
  :root {
    --bg: #14171d; --panel: #1c2028; --text: #e4e7ee; --muted: #8c94a6; --line: #2c323d;
    --accent: #6d93ff; --ok: #3cc48a; --bad: #f06a6a; --warn: #e0a93a; --sched: #a889e6;
  }
}
* { box-sizing: border-box; }
body {
  margin: 0; background: var(--bg); color: var(--text);
  font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif;
}
header {
  display: flex; align-items: center; gap: 24px; padding: 0 20px; height: 52px;
  background: var(--panel); border-bottom: 1px solid var(--line); position: sticky; top: 0; z-index: 1;
}
.brand { font-weight: 700; letter-spacing: .02em; }
.brand span { font-weight: 400; color: var(--muted); margin-left: 6px; }
nav { display: flex; gap: 4px; flex: 1; overflow-x: auto; }
nav a {
  color: var(--muted); text-decoration: none; padding: 6px 10px; border-radius: 6px; white-space: nowrap;
}
nav a:hover { color: var(--text); background: var(--bg); }
nav a.active { color: var(--accent); background: var(--bg); font-weight: 600; }
.badge {
  display: inline-block; min-width: 18px; padding: 0 5px; border-radius: 9px; font-size: 11px;
  text-align: center; background: var(--line); color: var(--text); font-weight: 600;
}
.badge:empty { display: none; }
.status { font-size: 12px; color: var(--muted); white-space: nowrap; }
.status::before {
  content: ""; display: inline-block; width: 8px; height: 8px; border-radius: 50%;
  background: var(--muted); margin-right: 6px;
}
.status.live::before { background: var(--ok); }
.status.down { color: var(--bad); }
.status.down::before { background: var(--bad); }
main { padding: 20px; max-width: 1280px; margin: 0 auto; }
.cards { display: grid; grid-template-columns: repeat(auto-fill, minmax(118px, 1fr)); gap: 12px; margin-bottom: 16px; }
.card, .panel { background: var(--panel); border: 1px solid var(--line); border-radius: 8px; }
.card { padding: 10px 12px; }
.card .label { color: var(--muted); font-size: 12px; white-space: nowrap; overflow: hidden; text-overflow: ellipsis; }
.card .value { font-size: 24px; font-weight: 600; font-variant-numeric: tabular-nums; }
.panels { display: grid; grid-template-columns: repeat(auto-fit, minmax(360px, 1fr)); gap: 16px; }
.panel { padding: 14px 16px; margin-bottom: 16px; overflow-x: auto; }
h2 { font-size: 14px; margin: 0 0 10px; display: flex; align-items: center; gap: 10px; }
h2 small, .hint { font-weight: 400; color: var(--muted); font-size: 12px; }
.legend i { display: inline-block; width: 10px; height: 3px; margin: 0 4px 3px 8px; vertical-align: middle; }
i.ok { background: var(--ok); } i.bad { background: var(--bad); } i.queued { background: var(--accent); }
i.running { background: var(--warn); } i.scheduled { background: var(--sched); }
.chart svg { display: block; width: 100%; height: 140px; }
.chart .axis { stroke: var(--line); }
.chart text { fill: var(--muted); font-size: 10px; }
.chart .ok { stroke: var(--ok); } .chart .bad { stroke: var(--bad); } .chart .queued { stroke: var(--accent); }
.chart .running { stroke: var(--warn); } .chart .scheduled { stroke: var(--sched); }
.chart polyline { fill: none; stroke-width: 1.5; stroke-linejoin: round; }
.chart .area { stroke: none; opacity: .12; }
.chart .area.ok { fill: var(--ok); }
table { width: 100%; border-collapse: collapse; background: var(--panel); }
section > table { border: 1px solid var(--line); border-radius: 8px; }
th, td { text-align: left; padding: 7px 10px; border-bottom: 1px solid var(--line); vertical-align: top; }
th { font-size: 12px; color: var(--muted); font-weight: 600; }
tbody tr:last-child td { border-bottom: 0; }
td.mono, .mono { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: 12px; word-break: break-all; }
td.args { max-width: 320px; color: var(--muted); }
td.error { color: var(--bad); max-width: 360px; word-break: break-word; }
td.act, th.act { width: 1%; white-space: nowrap; text-align: right; }
.progress-col { width: 220px; }
.bar { height: 8px; border-radius: 4px; background: var(--line); overflow: hidden; }
.bar > span { display: block; height: 100%; width: 0; background: var(--accent); transition: width .4s ease; }
.bar.indeterminate > span {
  width: 30% !important; animation: slide 1.2s ease-in-out infinite alternate;
}
@keyframes slide { from { margin-left: 0; } to { margin-left: 70%; } }
.bar-label { font-size: 11px; color: var(--muted); margin-top: 3px; }
.pill { font-size: 11px; padding: 1px 7px; border-radius: 9px; background: var(--line); }
.pill.queued { background: color-mix(in srgb, var(--accent) 20%, transparent); }
.pill.scheduled { background: color-mix(in srgb, var(--sched) 20%, transparent); }
.pill.paused, .paused-badge {
  background: color-mix(in srgb, var(--warn) 28%, transparent); font-weight: 600; margin-left: 4px;
}
.paused-badge { font-size: 11px; padding: 1px 7px; border-radius: 9px; color: var(--text); letter-spacing: .04em; }
.banner {
  margin: 0 0 16px; padding: 8px 12px; border-radius: 8px; border: 1px solid var(--warn);
  background: color-mix(in srgb, var(--warn) 12%, var(--panel));
}
.card .sub { font-size: 11px; color: var(--warn); font-weight: 600; }
.card .sub:empty { display: none; }
button.why { margin-left: 6px; padding: 1px 7px; font-size: 11px; }
tr.selected td { background: color-mix(in srgb, var(--accent) 9%, transparent); }
#explain h2 button { margin-left: auto; }
#explain p { margin: 6px 0 0; }
#explain-times span + span { margin-left: 14px; }
header > button { white-space: nowrap; }
.empty { color: var(--muted); margin: 10px 2px; }
.more { color: var(--muted); font-size: 12px; }
button {
  font: inherit; font-size: 12px; padding: 4px 10px; border-radius: 6px; cursor: pointer;
  border: 1px solid var(--line); background: var(--panel); color: var(--text);
}
button:hover { border-color: var(--accent); color: var(--accent); }
button.danger:hover { border-color: var(--bad); color: var(--bad); }
button:disabled { opacity: .5; cursor: default; }
.fields { display: flex; flex-wrap: wrap; gap: 10px; align-items: end; }
label { display: flex; flex-direction: column; gap: 3px; font-size: 12px; color: var(--muted); }
input, select {
  font: inherit; padding: 5px 8px; border-radius: 6px; border: 1px solid var(--line);
  background: var(--bg); color: var(--text); min-width: 140px;
}
body[data-readonly="true"] .action, body[data-readonly="true"] td.act button { display: none; }
#toast {
  position: fixed; bottom: 20px; right: 20px; max-width: 420px; padding: 10px 14px; border-radius: 8px;
  background: var(--text); color: var(--bg); box-shadow: 0 4px 16px rgba(0,0,0,.2);
}
#toast.error { background: var(--bad); color: #fff; }
`;
