/** The backend's words in the user's language. A failure, a package's or an
 * MCP server's problem, a run's progress line arrive with the backend's
 * English text and, where it names particulars, the key of its template and
 * the values it names ({key, params}); every failure also has a code. The
 * window says them from its catalogues (locales/backend.*.json): the
 * template's words when there is one, else the backend's own text in
 * English, else the code's sentence (which names no particulars: the
 * backend's text is then kept as the detail). A value may itself be words
 * ({key, params}) or a list of them, said in turn. */
import { i18n } from './index'

/** What the backend sent: its text, and what the catalogues know it by. */
export interface BackendWords {
  code?: string
  message?: string
  key?: string
  params?: Record<string, unknown> | null
}

/** Words by their template only (errs.Words). */
export interface Said {
  key: string
  params?: Record<string, unknown> | null
}

/** The words that part the items of a list (generated with the others). */
const listSeparator = 'backend.msg.list.separator'
const english = () => !i18n.language?.startsWith('zh')
const isSaid = (v: unknown): v is Said => !!v && typeof v === 'object' && !Array.isArray(v) && typeof (v as Said).key === 'string'

/** Marks the edges of a value in a rendered template (a word joiner). */
const edge = '\u2060'
const cjk = '\u3400-\u9fff\uf900-\ufaff'

/** The values with the words among them said; a plain value is marked at
 * its edges (spaced). */
function values(params: Record<string, unknown> | null | undefined, depth: number): Record<string, unknown> {
  const out: Record<string, unknown> = {}
  for (const [k, v] of Object.entries(params ?? {})) {
    if (isSaid(v)) out[k] = template(v.key, v.params, depth + 1) ?? ''
    else if (Array.isArray(v)) out[k] = v.map((x) => (isSaid(x) ? (template(x.key, x.params, depth + 1) ?? '') : edge + String(x) + edge)).join(i18n.t(listSeparator))
    else out[k] = edge + String(v) + edge
  }
  return out
}

/** Neither Chinese nor a space nor punctuation that needs no space. */
const latin = `[^\\s${cjk}\\u3000-\\u303f\\uff00-\\uffef\\u2018-\\u201f${edge}]`

const valueAfterChinese = new RegExp(`([${cjk}])${edge}(${latin})`, 'g')
const valueBeforeChinese = new RegExp(`(${latin})${edge}([${cjk}])`, 'g')

/** A space where a value of Latin letters, digits or a path meets Chinese
 * characters ("写入了 brief.md"), as Chinese text sets them apart. */
function spaced(s: string): string {
  return s.replace(valueAfterChinese, `$1 ${edge}$2`).replace(valueBeforeChinese, `$1${edge} $2`)
}

function template(key: string | undefined, params: Record<string, unknown> | null | undefined, depth = 0): string | undefined {
  if (!key || depth > 8) return undefined
  const full = `backend.msg.${key}`
  if (!i18n.exists(full)) return undefined
  const s = spaced(i18n.t(full, values(params, depth)) as string)
  return depth === 0 ? s.split(edge).join('') : s
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

/** Words by their template, or the backend's text when there are none (an
 * older backend) or the catalogue does not know them. */
export function saidText(said: Said | null | undefined, text: string): string {
  return (said && template(said.key, said.params)) ?? text
}

/** A sentence: the first letter a capital (the backend's words about a run
 * are phrases). */
export function sentence(s: string): string {
  return s ? s.charAt(0).toUpperCase() + s.slice(1) : s
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
  return { title: template(p.titleKey, p.params) ?? p.title, advice: template(p.adviceKey, p.params) ?? p.advice ?? '' }
}
