// The check every screenshot runs: no internal name, code or JSON on screen
// outside Details. The rendered text of the page is read (what is visible,
// with what <details>, [data-details] and the quoted content of answers, files
// and commands hold left out) and searched for error codes (E_NOT_FOUND),
// built-in tool names (fs.read, conv.create, skill.activate) and JSON ("{\"").

/** What must not be on screen outside Details. */
export const internalPatterns = [
  { what: 'an error code', re: /\bE_[A-Z_]{2,}/ },
  { what: 'a tool name', re: /\b(?:fs|conv|skill)\.[a-z_]+/ },
  { what: 'JSON', re: /\{"/ },
]

/** Areas whose text is shown as it is: Details, and the content the user
 * or the model wrote (code in answers, a file's text, a command's output). */
export const contentAreas = ['details', '[data-details]', '[data-content]', '.md pre', '.md code', '.md-plain', 'textarea', 'input', 'script', 'style']

/** The hits of the patterns in lines of text: [{ what, match, line }]. */
export function internalHits(text) {
  const hits = []
  for (const line of text.split('\n')) {
    for (const { what, re } of internalPatterns) {
      const m = re.exec(line)
      if (m) hits.push({ what, match: m[0], line: line.trim().slice(0, 200) })
    }
  }
  return hits
}

/** A page expression: the visible text of the page, one text node a line,
 * outside the content areas. */
export const visibleTextScript = `(() => {
  const skip = ${JSON.stringify(contentAreas.join(','))};
  const out = [];
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let n = walker.nextNode(); n; n = walker.nextNode()) {
    const text = n.nodeValue.trim();
    if (!text) continue;
    const el = n.parentElement;
    if (!el || el.closest(skip)) continue;
    if (el.closest('[hidden],[aria-hidden="true"]')) continue;
    const r = el.getBoundingClientRect();
    if (r.width === 0 && r.height === 0) continue;
    const cs = getComputedStyle(el);
    if (cs.visibility === 'hidden' || cs.display === 'none') continue;
    out.push(text);
  }
  return out.join('\\n');
})()`
