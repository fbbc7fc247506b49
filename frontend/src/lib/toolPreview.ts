/** What a tool card shows under its heading while folded: the text a result
 * carries (a file's content, a command's output, a server's text), or the
 * message of a failure — never the result's JSON, which stays under the
 * card's details. null: nothing worth a line (the heading's words say what
 * the call did). */
export function toolPreview(output: string): string | null {
  const t = output.trimStart()
  if (!t) return null
  if (!t.startsWith('{') && !t.startsWith('[')) return oneLine(output)
  let v: unknown
  try {
    v = JSON.parse(t)
  } catch {
    // Cut JSON (a large result's beginning): its text fields as far as they go.
    const m = /"(?:content|output|text|message)"\s*:\s*"((?:[^"\\]|\\.)*)/.exec(t)
    return m ? oneLine(unescape(m[1])) : null
  }
  if (!v || typeof v !== 'object' || Array.isArray(v)) return null
  const o = v as Record<string, unknown>
  const err = o.error
  if (o.ok === false && err && typeof err === 'object' && typeof (err as { message?: unknown }).message === 'string') {
    return oneLine((err as { message: string }).message)
  }
  for (const key of ['content', 'output', 'text', 'message', 'answer']) {
    const body = o[key]
    if (typeof body === 'string' && body.trim()) return oneLine(body)
  }
  return null
}

function unescape(s: string): string {
  try {
    return JSON.parse(`"${s.replace(/\\$/, '')}"`) as string
  } catch {
    return s
  }
}

function oneLine(s: string): string {
  const flat = s.replace(/\s+/g, ' ').trim()
  return flat.length > 240 ? `${flat.slice(0, 240)}…` : flat
}
