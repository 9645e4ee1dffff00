// Sessions as the app encodes them (core/src/session.rs): JSON, raw deflate, base64url without
// padding. Decoded and encoded in the page (CompressionStream), for specs that build links.

/** The session JSON of a permalink payload (without `#s=`). */
export async function decodeSession(page, payload) {
  return page.evaluate(async (p) => {
    const b64 = p.replace(/-/g, '+').replace(/_/g, '/');
    const bin = atob(b64 + '='.repeat((4 - (b64.length % 4)) % 4));
    const bytes = Uint8Array.from(bin, (c) => c.charCodeAt(0));
    const out = new Blob([bytes]).stream().pipeThrough(new DecompressionStream('deflate-raw'));
    return JSON.parse(await new Response(out).text());
  }, payload);
}

/** The permalink payload of a session JSON. */
export async function encodeSession(page, session) {
  return page.evaluate(async (s) => {
    const json = new Blob([JSON.stringify(s)]).stream().pipeThrough(new CompressionStream('deflate-raw'));
    const bytes = new Uint8Array(await new Response(json).arrayBuffer());
    let bin = '';
    for (const b of bytes) bin += String.fromCharCode(b);
    return btoa(bin).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
  }, session);
}

/** The autosaved session's payload (localStorage), or null. */
export async function savedPayload(page) {
  await written(page);
  return page.evaluate(() => localStorage.getItem('clusterscope.session'));
}

/** The autosave of the state shown has run: it runs after the frame is painted, and the first
 *  one of a page may wait for the session writer's part (the split release build: `#app[data-saving]`). */
export async function written(page) {
  await page.evaluate(() => new Promise((ok) => requestAnimationFrame(() => requestAnimationFrame(() => setTimeout(ok, 0)))));
  await page.waitForSelector('#app:not([data-saving])', { state: 'attached', timeout: 10_000 });
}
