/** The backend's words in the user's language. A failure, a package's or an
 * MCP server's problem, a run's progress line arrive with the backend's
 * English text and, where it names particulars, the key of its template and
 * the values it names ({key, params}); every failure also has a code. The
 * window says them from its catalogues (locales/backend.*.json): the
 * template's words when the language has them, else the backend's own text
 * in English, else the code's sentence (which names no particulars: the
 * backend's text is then kept as the detail). */
import { i18n } from './index'

/** What the backend sent: its text, and what the catalogues know it by. */
export interface BackendWords {
  code?: string
  message?: string
  key?: string
  params?: Record<string, unknown> | null
}

const english = () => !i18n.language?.startsWith('zh')

function template(key: string | undefined, params: Record<string, unknown> | null | undefined): string | undefined {
  if (!key) return undefined
  const full = `backend.msg.${key}`
  if (!i18n.exists(full)) return undefined
  return i18n.t(full, { ...(params ?? {}) }) as string
}

/** The code's sentence (replaced codes read as theirs), if the catalogue has one. */
function codeText(code: string | undefined): string | undefined {
  if (!code) return undefined
  const full = `backend.codes.${code}`
  return i18n.exists(full) ? (i18n.t(full) as string) : undefined
}

/** The words to show for what the backend sent, in the language in use. */
export function backendText(w: BackendWords): string {
  const own = template(w.key, w.params)
  if (own !== undefined) return own
  if (english() && w.message) return w.message
  return codeText(w.code) ?? w.message ?? ''
}

/** The backend's own text when backendText could only say the code's
 * sentence (the particulars are in it), else "". */
export function backendDetail(w: BackendWords): string {
  if (!w.message || template(w.key, w.params) !== undefined) return ''
  if (english() || codeText(w.code) === undefined) return ''
  return w.message
}

/** A failed reply as the conversation tells it (conversation.Problem). */
export interface BackendProblem {
  title: string
  advice?: string
  titleKey?: string
  adviceKey?: string
  params?: Record<string, unknown> | null
}

/** The title and advice of a failed reply in the language in use. */
export function problemText(p: BackendProblem): { title: string; advice: string } {
  const part = (key: string | undefined, text: string | undefined) => {
    if (key) {
      const full = `backend.msg.${key}`
      if (i18n.exists(full)) return i18n.t(full, { ...(p.params ?? {}) }) as string
    }
    return text ?? ''
  }
  return { title: part(p.titleKey, p.title), advice: part(p.adviceKey, p.advice) }
}
