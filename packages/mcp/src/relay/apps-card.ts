/*
 * The confirmation card's style and script (relay/apps.ts serves them inline, allowed by hash).
 * The script speaks the MCP Apps protocol over postMessage to the host: `ui/initialize`, then
 * `tools/call` of toolmark_card (with the key the relay writes in) and toolmark_card_answer. Every
 * value from the page is set as text, never as HTML.
 */

/** The card's CSS: the host's theme variables when it passes them, plain defaults otherwise. */
export const CARD_STYLE = `
:root { color-scheme: light dark; font-family: var(--font-sans, system-ui, sans-serif); }
body { margin: 0; padding: 12px 16px; color: var(--color-text-primary, CanvasText); background: var(--color-background-primary, Canvas); }
h1 { font-size: 1rem; margin: 0 0 4px; }
p { margin: 4px 0; }
.page, .muted { color: var(--color-text-secondary, GrayText); font-size: 0.85rem; }
ul { margin: 4px 0; padding-left: 1.2em; }
.warn { color: var(--color-text-danger, #b00020); font-weight: 600; }
.actions { display: flex; gap: 8px; margin-top: 12px; }
button { font: inherit; padding: 6px 14px; border-radius: 6px; border: 1px solid var(--color-border-primary, GrayText); background: transparent; color: inherit; cursor: pointer; }
button.primary { background: var(--color-background-inverse, #1f6feb); color: var(--color-text-inverse, #fff); border-color: transparent; }
button.danger { background: var(--color-background-danger, #b00020); color: #fff; border-color: transparent; }
button:disabled { opacity: 0.5; cursor: default; }
`

/** The card's script. `__TOOLMARK_CARD_KEY__` is replaced by the relay's card key. */
export const CARD_SCRIPT = `
(function () {
  'use strict';
  var KEY = '__TOOLMARK_CARD_KEY__';
  var seq = 0;
  var calls = new Map();
  var finished = false;
  var card = document.getElementById('card');
  function send(message) { window.parent.postMessage(message, '*'); }
  function request(method, params) {
    return new Promise(function (resolve, reject) {
      var id = ++seq;
      calls.set(id, { resolve: resolve, reject: reject });
      send({ jsonrpc: '2.0', id: id, method: method, params: params });
    });
  }
  function size() {
    send({ jsonrpc: '2.0', method: 'ui/notifications/size-changed', params: { height: Math.ceil(document.documentElement.scrollHeight) } });
  }
  function el(tag, text, cls) {
    var node = document.createElement(tag);
    if (text !== undefined) node.textContent = String(text);
    if (cls) node.className = cls;
    return node;
  }
  function status(text) {
    finished = true;
    card.replaceChildren(el('p', text, 'muted'));
    size();
  }
  window.addEventListener('message', function (event) {
    if (event.source !== window.parent) return;
    var m = event.data;
    if (!m || m.jsonrpc !== '2.0') return;
    if (m.method === undefined && calls.has(m.id)) {
      var call = calls.get(m.id);
      calls.delete(m.id);
      if (m.error) call.reject(new Error(String(m.error.message || 'error')));
      else call.resolve(m.result);
      return;
    }
    if (m.method === 'ping' || m.method === 'ui/resource-teardown') send({ jsonrpc: '2.0', id: m.id, result: {} });
    else if ((m.method === 'ui/notifications/tool-result' || m.method === 'ui/notifications/tool-cancelled') && !finished)
      status('The call is over.');
  });
  function json(value) { return JSON.stringify(value); }
  function render(c) {
    var nodes = [];
    nodes.push(el('h1', 'Confirm ' + (c.title || c.tool)));
    var page = c.page || {};
    nodes.push(el('p', (page.title ? page.title + ' · ' : '') + page.origin + ' (tab ' + page.tab + ')', 'page'));
    nodes.push(el('p', c.summary));
    if (c.target !== undefined) nodes.push(el('p', 'Target: ' + c.target));
    if (c.changes && c.changes.length > 0) {
      var list = el('ul');
      c.changes.forEach(function (change) {
        var before = Object.prototype.hasOwnProperty.call(change, 'before') ? json(change.before) + ' → ' : '';
        list.appendChild(el('li', change.path + ': ' + before + json(change.after)));
      });
      nodes.push(el('p', 'Changes:'), list);
    }
    if (c.destructive && !c.undoable) nodes.push(el('p', 'This action cannot be undone.', 'warn'));
    else if (c.undoable) nodes.push(el('p', 'This action can be undone from the page.', 'muted'));
    var actions = el('div', undefined, 'actions');
    var yes = el('button', c.destructive ? 'Delete' : 'Approve', c.destructive ? 'danger' : 'primary');
    var no = el('button', 'Cancel');
    yes.type = no.type = 'button';
    function answer(approved) {
      yes.disabled = no.disabled = true;
      request('tools/call', { name: 'toolmark_card_answer', arguments: { token: c.token, approved: approved } }).then(
        function (result) { status((result && result.content && result.content[0] && result.content[0].text) || 'Answered.'); },
        function () { status('The answer could not be sent: confirm in the page.'); }
      );
    }
    yes.addEventListener('click', function () { answer(true); });
    no.addEventListener('click', function () { answer(false); });
    actions.append(yes, no);
    nodes.push(actions);
    card.replaceChildren.apply(card, nodes);
    size();
  }
  request('ui/initialize', {
    appInfo: { name: 'toolmark-confirm', version: '1.0.0' },
    appCapabilities: {},
    protocolVersion: '2026-01-26'
  }).then(function (init) {
    send({ jsonrpc: '2.0', method: 'ui/notifications/initialized', params: {} });
    var info = init && init.hostContext && init.hostContext.toolInfo;
    var args = { key: KEY };
    if (info && info.tool && typeof info.tool.name === 'string') args.tool = info.tool.name;
    if (info && info.id !== undefined && info.id !== null) args.requestId = String(info.id);
    return request('tools/call', { name: 'toolmark_card', arguments: args });
  }).then(function (result) {
    var c = result && result.structuredContent;
    if (finished) return;
    if (!c || c.status !== 'pending') status('No confirmation is waiting here.');
    else render(c);
  }, function () {
    status('The confirmation could not be shown: confirm in the page.');
  });
})();
`
