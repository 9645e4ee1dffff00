// When the simulator stops for good (issue 39; see web/src/crash.rs): a Rust panic, or a trap
// without one (an allocation the browser refused: out of memory). The WebAssembly module is then
// unusable: the trap left whatever Rust held borrowed, and a later call into it may panic again.
// This plain script, loaded before the module, shows what happened and the way back (a reload
// into the saved session, on the person's click), and keeps the page from calling into the module:
// every DOM event stops at the window before any of the app's listeners, pending timers and
// animation frames are cancelled, and the app is made inert. Nothing here calls the module except
// to ask, after a trap without a panic, whether the allocator was refused (a read of a counter).
//
// The Rust panic hook calls window.__csStopped(message) (counted in window.__csPanics). Hooks for tests
// (tests/e2e/specs/crash.mjs): window.__csTraps (the traps seen, before and after the stop; the
// banner suppresses their console report), #crash[data-kind] (panic, oom, trap), #crash-message,
// #crash-reload (back to the saved session), #crash-link (reload the link in the address bar,
// when it is not the saved session).
(() => {
  const SESSION = 'clusterscope.session';
  const LABEL = 'clusterscope.session.label';
  const EVENTS = [
    'click', 'dblclick', 'auxclick', 'contextmenu', 'mousedown', 'mouseup', 'mousemove', 'mouseover',
    'mouseout', 'pointerdown', 'pointerup', 'pointermove', 'pointerover', 'pointerout', 'pointercancel',
    'touchstart', 'touchmove', 'touchend', 'wheel', 'keydown', 'keyup', 'keypress', 'input', 'change',
    'submit', 'focusin', 'focusout', 'dragstart', 'dragover', 'drop', 'paste', 'copy', 'hashchange',
    'popstate', 'resize', 'fullscreenchange', 'visibilitychange',
  ];
  let box = null;
  let memory = null;

  const stored = (k) => {
    try {
      return localStorage.getItem(k);
    } catch {
      return null;
    }
  };
  const size = (b) => (b >= 1 << 30 ? `${(b / 2 ** 30).toFixed(2)} GiB` : `${Math.round(b / 2 ** 20)} MiB`);
  const el = (tag, attrs, ...kids) => {
    const e = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, v);
    for (const k of kids) e.append(k);
    return e;
  };

  function reloadInto(payload) {
    const url = location.pathname + location.search + (payload ? `#s=${payload}` : '');
    history.replaceState(null, '', url);
    location.reload();
  }

  // Every DOM event stops here, before the app's listeners (window, capture phase, registered
  // first); the banner's buttons act here too. Default actions (scrolling, selecting text,
  // moving the focus) still happen: the page answers, the module is not called.
  function block(e) {
    if (!box) return;
    e.stopImmediatePropagation();
    if (e.type === 'click' && e.target instanceof Element && box.contains(e.target)) {
      const b = e.target.closest('button[data-act]');
      if (b) reloadInto(b.dataset.act === 'saved' ? stored(SESSION) : location.hash.replace(/^#s=/, ''));
    }
  }
  for (const t of EVENTS) window.addEventListener(t, block, true);

  function stop(message, kind) {
    if (box) return;
    try {
      console.error(`Clusterscope: the simulator stopped: ${message}\n${new Error().stack}`);
    } catch {
      /* no console */
    }
    // Work queued for the module: timers (the banner's fade, an export's next chunk) and
    // animation frames (playing) would call into it.
    const t = setTimeout(() => {}, 0);
    for (let i = 1; i <= t; i++) clearTimeout(i);
    const f = requestAnimationFrame(() => {});
    for (let i = 1; i <= f; i++) cancelAnimationFrame(i);

    const saved = stored(SESSION);
    const label = stored(LABEL);
    const link = location.hash.replace(/^#s=/, '');
    const other = link && saved && link !== saved;
    const kept = saved
      ? [
          'Your session is kept: ',
          el('b', {}, label || 'the last session'),
          ' was saved before this happened. This page no longer runs the simulator; reload to go on.',
        ]
      : ['Nothing was saved in this browser yet. This page no longer runs the simulator; reload to go on.'];
    const buttons = el('div', { class: 'crash-buttons' });
    buttons.append(
      el(
        'button',
        { id: 'crash-reload', class: 'btn primary', 'data-act': 'saved', type: 'button' },
        saved ? (other ? 'Back to the saved session' : 'Reload the saved session') : 'Reload the page',
      ),
    );
    if (other) {
      buttons.append(
        el('button', { id: 'crash-link', class: 'btn', 'data-act': 'link', type: 'button' }, 'Reload this link (it may stop again)'),
      );
    }
    box = el(
      'div',
      { id: 'crash', class: 'crash', role: 'alertdialog', 'aria-labelledby': 'crash-title', 'data-kind': kind },
      el(
        'div',
        { class: 'crash-box' },
        el('h2', { id: 'crash-title' }, 'The simulator stopped'),
        el('p', { id: 'crash-message', class: 'crash-message' }, message),
        el('p', { class: 'crash-kept' }, ...kept),
        buttons,
      ),
    );
    document.body.append(box);
    document.body.classList.add('cs-stopped');
    const app = document.getElementById('app');
    if (app) app.setAttribute('inert', '');
    box.querySelector('button')?.focus({ preventScroll: true });
  }

  // The panic hook (web/src/crash.rs) calls this before the module traps.
  window.__csPanics = 0;
  window.__csStopped = (message) => {
    window.__csPanics += 1;
    stop(String(message), 'panic');
  };

  // A trap without a panic: out of memory (the allocator was refused) or a stack overflow.
  window.__csTraps = 0;
  function onTrap(err) {
    if (!(err instanceof WebAssembly.RuntimeError)) return false;
    window.__csTraps += 1;
    if (box) return true;
    const m = window.wasmBindings;
    let failed = 0;
    try {
      failed = m?.failed_allocation?.() ?? 0;
      m?.mark_stopped?.();
    } catch {
      /* the module cannot even answer that */
    }
    const used = memory ? memory.buffer.byteLength : 0;
    if (failed > 0) {
      stop(
        `it ran out of memory: the browser refused ${size(failed)} more` +
          (used ? ` with ${size(used)} of WebAssembly memory in use` : '') +
          ' (a tab\u2019s WebAssembly memory ends at 4 GiB).',
        'oom',
      );
    } else {
      stop(`${err.message || err} (a trap in the WebAssembly module without a panic message).`, 'trap');
    }
    return true;
  }
  window.addEventListener('error', (e) => {
    if (onTrap(e.error)) e.preventDefault();
  });
  window.addEventListener('unhandledrejection', (e) => {
    if (onTrap(e.reason)) e.preventDefault();
  });
  // trunk's loader announces the instance: its memory says how much is in use.
  window.addEventListener('TrunkApplicationStarted', (e) => {
    memory = e.detail?.wasm?.memory ?? null;
  });
})();
