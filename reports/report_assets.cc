#include "lockstep/reports/report_assets.h"

namespace lockstep::reports {

const char* const kReportCss = R"CSS(
body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; margin: 0 24px 40px; color: #1a202c; background: #fff; }
h1 { font-size: 22px; margin: 18px 0 6px; }
h2 { font-size: 17px; margin: 22px 0 8px; border-bottom: 1px solid #e2e8f0; padding-bottom: 3px; }
h3 { font-size: 15px; margin: 12px 0 4px; }
code, pre { font: 12.5px/1.4 ui-monospace, "DejaVu Sans Mono", monospace; }
pre { background: #f7fafc; border: 1px solid #e2e8f0; padding: 8px 10px; overflow-x: auto; white-space: pre-wrap; word-break: break-all; }
.verdict { font-weight: 700; padding: 1px 8px; border-radius: 4px; }
.status-ok { background: #c6f6d5; color: #22543d; }
.status-violated { background: #fed7d7; color: #822727; }
.status-unknown { background: #fefcbf; color: #744210; }
.verdict-words { font-size: 15px; margin: 4px 0 10px; }
table.checks { border-collapse: collapse; width: 100%; }
table.checks td, table.checks th { border-top: 1px solid #e2e8f0; padding: 6px 8px; vertical-align: top; text-align: left; }
table.checks th { font-weight: 600; background: #f7fafc; }
.figures { display: flex; flex-wrap: wrap; gap: 2px 14px; font-size: 12.5px; color: #4a5568; }
.figures span b { color: #1a202c; font-weight: 600; }
#violation-explanation li { margin: 3px 0; }
#violation-explanation a.cause-link { color: inherit; text-decoration: underline dotted #c53030; }
#violation-explanation { background: #fff5f5; border-left: 4px solid #c53030; padding: 4px 14px 8px; }
.errors:empty { display: none; }
.errors { background: #fed7d7; color: #822727; border: 1px solid #c53030; padding: 6px 10px; white-space: pre-wrap; font-family: monospace; }
.toolbar { display: flex; flex-wrap: wrap; gap: 6px; align-items: center; margin: 6px 0; }
.toolbar button { font: inherit; padding: 3px 10px; border: 1px solid #a0aec0; border-radius: 4px; background: #edf2f7; cursor: pointer; }
.toolbar button.danger { background: #fed7d7; border-color: #c53030; color: #822727; font-weight: 600; }
.toolbar .view { color: #4a5568; margin-left: 8px; font-size: 13px; }
#timeline { width: 100%; overflow: hidden; border: 1px solid #e2e8f0; cursor: grab; user-select: none; }
#timeline-svg { display: block; }
.legend { display: flex; flex-wrap: wrap; gap: 4px 14px; font-size: 12px; color: #4a5568; margin: 6px 0; }
.legend i { display: inline-block; width: 14px; height: 10px; margin-right: 4px; vertical-align: -1px; border-radius: 2px; }
.note { font-size: 12.5px; color: #4a5568; }
table.faults { border-collapse: collapse; font-size: 12.5px; }
table.faults td, table.faults th { padding: 2px 10px 2px 0; text-align: left; }
svg text { font: 11px system-ui, sans-serif; fill: #2d3748; }
svg .lane-name { font-weight: 600; font-size: 12px; }
svg .row-name { fill: #718096; font-size: 10px; }
svg .axis text { fill: #4a5568; font-size: 10.5px; }
svg .axis line { stroke: #cbd5e0; }
svg .lane-bg { fill: #fff; }
svg .lane-bg.odd { fill: #f7fafc; }
svg .item-label { font-size: 9.5px; fill: #1a202c; pointer-events: none; }
svg .inbar { fill: #fff; }
.k-belief, .k-belief-open { fill: #2b6cb0; }
.k-key, .k-key-open { fill: #38a169; }
.k-lease { fill: #d69e2e; }
.k-lease-expired { fill: #c53030; }
.k-op-ok { fill: #718096; }
.k-op-fail { fill: #e53e3e; }
.k-op-info { fill: #dd6b20; }
.k-op-open { fill: #a0aec0; }
.k-leader { fill: #805ad5; }
.k-truth { fill: #4a5568; }
.k-write-accepted { fill: #2f855a; }
.k-write-rejected { fill: #c53030; }
.k-read { fill: #a0aec0; }
.k-trace { fill: #cbd5e0; }
.f-pause { fill: #9f7aea; } .f-partition { fill: #ed8936; } .f-crash { fill: #1a202c; }
.f-clock { fill: #4299e1; } .f-lease-drop { fill: #d53f8c; } .f-leader-change { fill: #e53e3e; }
.f-delay, .f-loss, .f-duplicate, .f-reorder { fill: #ecc94b; }
.f-compaction, .f-slow-revoke, .f-other { fill: #38b2ac; }
.band { fill-opacity: 0.22; }
.band.instant { fill-opacity: 0.8; }
.band.strip { fill-opacity: 0.9; }
.violation-band { fill: #e53e3e; fill-opacity: 0.16; stroke: #c53030; stroke-width: 1.5; }
.violation-line { stroke: #c53030; stroke-width: 1.5; stroke-dasharray: 4 3; }
.violation-label { fill: #c53030; font-weight: 700; font-size: 12px; }
)CSS";

const char* const kErrorCaptureJs = R"JS(
window.lockstepErrors = [];
window.lockstepReportError = function (text) {
  window.lockstepErrors.push(String(text));
  var box = document.getElementById('script-errors');
  if (box) box.textContent = 'Script error: ' + window.lockstepErrors.join('\n');
  if (document.body) document.body.dataset.ready = 'error';
};
window.addEventListener('error', function (e) {
  window.lockstepReportError((e.message || 'error') + ' at line ' + (e.lineno || '?'));
});
)JS";

const char* const kTimelineJs = R"JS(
(function () {
  'use strict';
  var svg = document.getElementById('timeline-svg');
  var box = document.getElementById('timeline');
  var data = JSON.parse(document.getElementById('timeline-data').textContent);
  // One line above the axis per violation, for its label.
  var LABEL_W = 175, ROW_H = 13, LANE_PAD = 8, AXIS_H = 22, TOP = 8 + 14 * Math.max(1, data.violations.length),
      RIGHT = 12, TAIL = 26;
  var POINT_KINDS = { 'lease-expired': 1, 'write-accepted': 1, 'write-rejected': 1, 'read': 1, 'truth': 1, 'trace': 1 };
  var OPEN_KINDS = { 'belief-open': 'fade-belief', 'key-open': 'fade-key', 'op-info': 'fade-info', 'op-open': 'fade-open' };
  var FAULTS = { 'pause': 1, 'partition': 1, 'crash': 1, 'clock': 1, 'lease-drop': 1, 'leader-change': 1, 'delay': 1,
                 'loss': 1, 'duplicate': 1, 'reorder': 1, 'compaction': 1, 'slow-revoke': 1 };
  var HEAVY_FAULTS = { 'pause': 1, 'partition': 1, 'crash': 1, 'clock': 1, 'lease-drop': 1 };

  function esc(s) {
    return String(s).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
  }
  function secs(us, digits) { return (us / 1e6).toFixed(digits === undefined ? 3 : digits) + ' s'; }

  // In time order, so a label is drawn only where the previous one in its row has ended.
  data.items.sort(function (p, q) { return p[3] - q[3]; });
  var lanes = data.lanes, laneTop = [], y = TOP + AXIS_H;
  lanes.forEach(function (l) { laneTop.push(y); y += l.rows.length * ROW_H + LANE_PAD; });
  var height = y + 6;
  var full = { a: data.start, b: Math.max(data.end, data.start + 1) };
  var view = { a: full.a, b: full.b };

  function violationView(v) {
    var span = Math.max(v.cb - v.ca, 200000);
    var pad = span * 0.15;
    return { a: Math.max(full.a, v.ca - pad), b: Math.min(full.b, v.cb + pad) };
  }

  function niceStep(raw) {
    var p = Math.pow(10, Math.floor(Math.log10(raw))), m = raw / p;
    return (m <= 1 ? 1 : m <= 2 ? 2 : m <= 5 ? 5 : 10) * p;
  }

  function render() {
    var W = Math.max(700, box.clientWidth), plotW = W - LABEL_W - RIGHT;
    var a = view.a, b = view.b, k = plotW / (b - a);
    var x = function (t) { return Math.max(LABEL_W - 40, Math.min(W + 40, LABEL_W + (t - a) * k)); };
    var out = [];
    out.push('<defs>');
    [['fade-belief', '#2b6cb0'], ['fade-key', '#38a169'], ['fade-info', '#dd6b20'], ['fade-open', '#a0aec0']].forEach(function (g) {
      out.push('<linearGradient id="' + g[0] + '"><stop offset="0" stop-color="' + g[1] + '" stop-opacity="0.9"/>' +
               '<stop offset="1" stop-color="' + g[1] + '" stop-opacity="0"/></linearGradient>');
    });
    out.push('<clipPath id="plot-clip"><rect x="' + LABEL_W + '" y="0" width="' + plotW + '" height="' + height + '"/></clipPath></defs>');

    // Lanes and their captions.
    lanes.forEach(function (l, i) {
      var top = laneTop[i], h = l.rows.length * ROW_H + LANE_PAD;
      out.push('<rect class="lane-bg' + (i % 2 ? ' odd' : '') + '" x="0" y="' + (top - LANE_PAD / 2) + '" width="' + W + '" height="' + h + '"/>');
      out.push('<text class="lane-name" x="6" y="' + (top + ROW_H - 2) + '">' + esc(l.name) + '</text>');
      l.rows.forEach(function (r, j) {
        out.push('<text class="row-name" x="' + (LABEL_W - 6) + '" y="' + (top + j * ROW_H + ROW_H - 3) + '" text-anchor="end">' + esc(r) + '</text>');
      });
    });

    // Axis.
    var step = niceStep((b - a) / Math.max(2, plotW / 110));
    var digits = Math.max(0, Math.min(6, -Math.floor(Math.log10(step / 1e6))));
    out.push('<g class="axis">');
    for (var t = Math.ceil(a / step) * step; t <= b; t += step) {
      var tx = x(t);
      out.push('<line x1="' + tx + '" x2="' + tx + '" y1="' + (TOP + AXIS_H - 6) + '" y2="' + height + '" stroke-opacity="0.5"/>');
      out.push('<text x="' + tx + '" y="' + (TOP + AXIS_H - 9) + '" text-anchor="middle">' + secs(t, digits) + '</text>');
    }
    out.push('</g><g clip-path="url(#plot-clip)">');

    // Fault bands, under everything else.
    data.bands.forEach(function (f) {
      var kind = f[0], s = f[1], e = f[2];
      if (e < a || s > b) return;
      var x1 = x(s), w = Math.max(2, x(e) - x1), cls = 'band f-' + (FAULTS[kind] ? kind : 'other') + (e === s ? ' instant' : '');
      var tip = '<title>' + esc(f[6]) + '</title>';
      // Faults that stop a process or cut it off shade its whole lane; message-level faults
      // (delay, loss, ...) are a strip along the lane's foot, so they do not drown the rest.
      var strip = e !== s && !HEAVY_FAULTS[kind];
      f[4].forEach(function (li) {
        var top = laneTop[li] - LANE_PAD / 2 + 1, h = lanes[li].rows.length * ROW_H + LANE_PAD - 2;
        if (strip) { top = top + h - 4; h = 3; }
        out.push('<rect class="' + cls + (strip ? ' strip' : '') + '" x="' + x1 + '" y="' + top + '" width="' + w + '" height="' + h + '">' + tip + '</rect>');
      });
    });

    // Items. Labels are drawn only where there is room for them.
    var labelEnd = {};  // per row: where the last label drawn there ends
    function roomFor(it, x1, text) {
      var key = it[0] + ':' + it[1];
      if (labelEnd[key] !== undefined && x1 < labelEnd[key]) return false;
      labelEnd[key] = x1 + text.length * 6 + 6;
      return true;
    }
    data.items.forEach(function (it) {
      var s = it[3], e = it[4];
      if (e < a || s > b) return;
      var kind = data.kinds[it[2]], n = it[5], label = it[6];
      var top = laneTop[it[0]] + it[1] * ROW_H, x1 = x(s), x2 = x(e);
      var tip = '<title>' + esc(it[7]) + (e > s ? ' (' + secs(s) + ' to ' + secs(e) + ')' : ' (at ' + secs(s) + ')') + '</title>';
      var cls = 'k-' + kind;
      if (POINT_KINDS[kind] && (n === 1 || e === s)) {
        if (kind === 'lease-expired') {
          out.push('<path class="' + cls + '" d="M' + (x1 - 4) + ',' + (top + 1) + 'l8,9m0,-9l-8,9" stroke="#c53030" stroke-width="2">' + tip + '</path>');
        } else {
          out.push('<rect class="' + cls + '" x="' + (x1 - 1) + '" y="' + top + '" width="2.5" height="' + (ROW_H - 1) + '">' + tip + '</rect>');
        }
        if (n > 1) label = '\u00d7' + n;
        if (label && roomFor(it, x1, label))
          out.push('<text class="item-label" x="' + (x1 + 3) + '" y="' + (top + ROW_H - 3) + '">' + esc(label) + '</text>');
        return;
      }
      var w = Math.max(1.5, x2 - x1), h = kind === 'lease' ? 4 : ROW_H - 3, yy = kind === 'lease' ? top + 4 : top + 1;
      out.push('<rect class="' + cls + (n > 1 ? ' merged' : '') + '" x="' + x1 + '" y="' + yy + '" width="' + w + '" height="' + h + '"' +
               (n > 1 ? ' fill-opacity="0.55"' : '') + '>' + tip + '</rect>');
      if (OPEN_KINDS[kind] && n === 1)
        out.push('<rect x="' + (x1 + w) + '" y="' + yy + '" width="' + TAIL + '" height="' + h + '" fill="url(#' + OPEN_KINDS[kind] + ')">' + tip + '</rect>');
      if (n > 1) label = '\u00d7' + n;
      if (label && w > label.length * 6 + 4 && roomFor(it, x1, label))
        out.push('<text class="item-label inbar" x="' + (x1 + 2) + '" y="' + (top + ROW_H - 3) + '">' + esc(label) + '</text>');
    });

    // The violations, on top.
    data.violations.forEach(function (v, i) {
      var x1 = x(v.a), x2 = x(v.b);
      if (x2 - x1 < 6) { var mid = (x1 + x2) / 2; x1 = mid - 3; x2 = mid + 3; }
      var rows = v.lanes.length ? v.lanes : lanes.map(function (_, j) { return j; });
      out.push('<g class="violation" data-check="' + esc(v.check) + '"' + (i === 0 ? ' id="violation"' : '') + '>');
      rows.forEach(function (li) {
        var top = laneTop[li] - LANE_PAD / 2, h = lanes[li].rows.length * ROW_H + LANE_PAD;
        out.push('<rect class="violation-band" x="' + x1 + '" y="' + top + '" width="' + (x2 - x1) + '" height="' + h + '"><title>' + esc(v.summary) + '</title></rect>');
      });
      out.push('<line class="violation-line" x1="' + x1 + '" x2="' + x1 + '" y1="' + TOP + '" y2="' + height + '"/>');
      out.push('<line class="violation-line" x1="' + x2 + '" x2="' + x2 + '" y1="' + TOP + '" y2="' + height + '"/>');
      // Keep the label on the page: anchored at the band's start, or at its end near the right edge.
      var lx = Math.max(x1, LABEL_W) + 3, labelRight = lx + 7 * (v.check.length + 11) > W - RIGHT;
      if (labelRight) lx = Math.min(x2, W - RIGHT) - 3;
      out.push('<text class="violation-label" x="' + lx + '" y="' + (TOP - 6 - 14 * i) + '"' +
               (labelRight ? ' text-anchor="end"' : '') + '>\u25bc ' + esc(v.check) + ' violated</text></g>');
    });
    out.push('</g>');

    svg.setAttribute('width', W);
    svg.setAttribute('height', height);
    svg.setAttribute('viewBox', '0 0 ' + W + ' ' + height);
    svg.innerHTML = out.join('');
    document.getElementById('view-span').textContent =
      'showing ' + secs(a) + ' to ' + secs(b) + ' of ' + secs(full.a) + ' to ' + secs(full.b);
  }

  function setView(v) {
    var span = Math.max(v.b - v.a, 1000);
    var a = Math.max(full.a, Math.min(v.a, full.b - span));
    view = { a: a, b: Math.min(full.b, a + span) };
    render();
  }
  function zoom(factor, centre) {
    var c = centre === undefined ? (view.a + view.b) / 2 : centre;
    setView({ a: c - (c - view.a) * factor, b: c + (view.b - c) * factor });
  }

  // A sentence of the explanation: zoom to the span it names, with room around it.
  document.querySelectorAll('[data-zoom-span]').forEach(function (link) {
    link.addEventListener('click', function () {
      var ab = link.dataset.zoomSpan.split(',').map(Number);
      var pad = Math.max((ab[1] - ab[0]) * 0.15, 200000);
      setView({ a: ab[0] - pad, b: ab[1] + pad });
    });
  });
  document.querySelectorAll('[data-zoom-violation]').forEach(function (btn) {
    btn.addEventListener('click', function () { setView(violationView(data.violations[+btn.dataset.zoomViolation])); });
  });
  document.getElementById('zoom-all').addEventListener('click', function () { setView(full); });
  document.getElementById('zoom-in').addEventListener('click', function () { zoom(0.5); });
  document.getElementById('zoom-out').addEventListener('click', function () { zoom(2); });
  box.addEventListener('wheel', function (e) {
    if (!e.ctrlKey && !e.shiftKey) return;  // plain wheel scrolls the page
    e.preventDefault();
    var r = box.getBoundingClientRect(), plotW = r.width - LABEL_W - RIGHT;
    var t = view.a + (e.clientX - r.left - LABEL_W) / plotW * (view.b - view.a);
    zoom(e.deltaY > 0 ? 1.25 : 0.8, t);
  }, { passive: false });
  var drag = null;
  box.addEventListener('mousedown', function (e) { drag = { x: e.clientX, a: view.a, b: view.b }; });
  window.addEventListener('mouseup', function () { drag = null; });
  window.addEventListener('mousemove', function (e) {
    if (!drag) return;
    var plotW = box.clientWidth - LABEL_W - RIGHT, dt = (e.clientX - drag.x) / plotW * (drag.b - drag.a);
    setView({ a: drag.a - dt, b: drag.b - dt });
  });
  window.addEventListener('resize', render);

  if (location.hash === '#zoom=violation' && data.violations.length) setView(violationView(data.violations[0]));
  // A link to one sentence of the explanation (the demo's index links each step of the
  // causal chain so): zoom to what it names.
  var named = /^#why-/.test(location.hash) && document.getElementById(location.hash.slice(1));
  var namedLink = named && named.querySelector('[data-zoom-span]');
  if (namedLink) namedLink.click();
  else render();
  if (!window.lockstepErrors.length) document.body.dataset.ready = 'ok';
})();
)JS";

}  // namespace lockstep::reports
