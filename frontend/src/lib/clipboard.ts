/** Puts text on the system clipboard with the browser's API; where the
 * page may not use it (the webview's custom scheme is not always a secure
 * context), through a hidden text area and the copy command, which WebKit
 * honours during a click. Resolves to whether the text was copied. */
export async function copyText(text: string, doc: Document = document, waitMs = 1500): Promise<boolean> {
  try {
    const clip = doc.defaultView?.navigator.clipboard
    if (clip?.writeText) {
      // A webview may leave the request pending (waiting for a permission it
      // never asks for): give it a moment, then use the copy command.
      let timer: ReturnType<typeof setTimeout> | undefined
      const late = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), waitMs)))
      const ok = await Promise.race([clip.writeText(text).then(() => true), late])
      clearTimeout(timer)
      if (ok) return true
    }
  } catch {
    // refused: try the copy command
  }
  const area = doc.createElement('textarea')
  area.value = text
  area.setAttribute('readonly', '')
  area.style.cssText = 'position:fixed;left:-10000px;top:0;opacity:0'
  const focused = doc.activeElement as HTMLElement | null
  doc.body.appendChild(area)
  area.select()
  let ok = false
  try {
    ok = doc.execCommand('copy')
  } catch {
    ok = false
  }
  area.remove()
  focused?.focus?.({ preventScroll: true })
  return ok
}
